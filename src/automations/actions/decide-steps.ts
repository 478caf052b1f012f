import type { EntityManager } from '@mikro-orm/postgresql';
import { openStoredResult } from '../../functions/result-seal.ts';
import type { MasterKeys } from '../../crypto/envelope.ts';
import { readDecision } from './decision.ts';
import { finishFunctionRun } from '../runs/run-steps.ts';
import { endSkipped, failUncalled, readRunToDecide, storeCalls, type DecideRow } from './run-contract.sql.ts';
import { executionStatus, runStatus, type RunStatus } from '../../shared/outcomes.ts';

interface DecideDeps {
  em: EntityManager;
  masterKeys: MasterKeys;
}

/**
 * A sending function's run once its execution completed (its workflow knows, and asks only then):
 * the execution's result is the decision. A skip ends the run a success that sent nothing
 * (`skipped`); a result of another shape, or a call whose template the trigger cannot fill, ends
 * it a failure (`InvalidDecision`, `TemplateError`); calls are stored on the run, which then sends
 * them as a contract action's (`send`). A run that holds calls or a transaction already decided:
 * it is never decided again.
 */
export async function decideRun(deps: DecideDeps, runId: string): Promise<RunStatus | 'send'> {
  const run = await readRunToDecide(deps.em, runId);
  if (!run || run.status !== runStatus.running || run.decided) return standing(run);
  const { action } = run;
  // Its action replaced meanwhile by one that sends nothing: the run ends as a function run does,
  // as its execution completed (only then is it decided).
  if (action.type !== 'function' || !action.execute || !run.execution_id) {
    return finishFunctionRun(deps.em, runId, { status: executionStatus.completed, errorName: null });
  }
  const result = await openStoredResult(deps.em, deps.masterKeys, run.execution_id);
  const decision = readDecision(result, action.execute, run.trigger);
  // Each write is conditional on the run holding no calls: of two attempts, the first decides.
  if (decision.kind === 'skip') await endSkipped(deps.em, runId, decision.reason);
  else if (decision.kind === 'invalid') await failUncalled(deps.em, runId, decision.error);
  else await storeCalls(deps.em, runId, decision.calls);
  return standing(await readRunToDecide(deps.em, runId));
}

/** What the run's workflow does next: send the calls the run holds, or nothing (it ended). */
const standing = (run: DecideRow | undefined): RunStatus | 'send' => {
  // A run deleted with its automation answers a failure: nothing left to do or to record.
  if (!run) return runStatus.failure;
  return run.status === runStatus.running && run.decided ? 'send' : run.status;
};

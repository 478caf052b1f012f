import type { EntityManager } from '@mikro-orm/postgresql';
import { noteRunEnd } from '../automations/notifications/run-end.ts';
import { endRunById, type FiredRun } from '../automations/runs/fires.ts';
import { runningRunsPage, type RunningRunRow } from './run-sweep.sql.ts';
import { labelAttributes } from '../shared/workflow-attributes.ts';
import { endLost, type LostEnds } from './sweep-executions.ts';
import { rowSweep } from './row-sweep.ts';
import { signalDecision } from '../automations/approvals/approvals.control.ts';
import type { WorkflowState } from './workflow-state.ts';
import { executionErrorName, runStatus, workflowStanding, type RunStatus } from '../shared/outcomes.ts';

/**
 * One page of the automation runs still `running` once `graceMs` has passed, each held against
 * its action's workflow (id = run id): one that never started is handed back to be started (a
 * crash between recording the run and starting it); one that closed without ending the run ends
 * it now, from the workflow's outcome or else as a failure (`ExecutionLostError`), with its
 * execution, and records the notifications its end calls for (a failure streak, a recovery; the
 * notifications' own sweep delivers them); one still running is left to run. A run holding a
 * signed transaction is never ended here, whatever closed its workflow (an operator's cancel, a
 * failure): its action is started again, and relays the same transaction until the chain answers.
 * One still running whose approvals were decided, unsigned yet, is signalled again: the API's
 * signal may have been lost to a crash (approvals.service.ts); a repeated one changes nothing.
 * The run's execution, when still running, ends failed and signed (`ends`).
 */
export const sweepRuns = (ends: LostEnds) =>
  rowSweep(runningRunsPage, async (em, row, state, client) => {
    if (state.state === workflowStanding.missing) return { start: firedRunOf(row) };
    // Not sent now (Temporal busy): the next pass sends it, and the page goes on with the other runs.
    if (state.state === workflowStanding.running && row.approval_decided) {
      await signalDecision(client, row.id).catch(() => undefined);
    }
    if (state.state !== workflowStanding.closed) return undefined;
    if (row.holds_transaction) return { start: firedRunOf(row) };
    if (row.execution_id) await endLost({ ...ends, em }, row.execution_id, state, true);
    if (!(await endLostRun(em, row.id, state))) return undefined;
    await noteRunEnd(em, row.id);
    return 'ended';
  });

const firedRunOf = (row: RunningRunRow): FiredRun => ({
  runId: row.id,
  labels: labelAttributes({
    accountId: row.account_id,
    automationId: row.automation_id,
    trigger: row.retry_of ? 'retry' : row.trigger_type,
  }),
});

async function endLostRun(
  em: EntityManager,
  runId: string,
  state: Extract<WorkflowState, { state: typeof workflowStanding.closed }>,
) {
  const outcome = state.outcome as RunStatus | undefined;
  if (outcome === runStatus.success) return endRunById(em, runId, runStatus.success);
  const message =
    outcome === runStatus.failure
      ? 'The run failed; its error could not be stored.'
      : `The run could not end: ${state.reason}.`;
  return endRunById(em, runId, runStatus.failure, { name: executionErrorName.ExecutionLostError, message });
}

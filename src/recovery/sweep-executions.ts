import type { SearchAttributePair } from '@temporalio/common';
import { countEnded } from '../functions/execution-metrics.ts';
import { outcomeOf } from '../functions/execution-outcome.ts';
import type { ExecutionTrigger } from '../functions/execution-record.ts';
import { Execution } from '../functions/execution.entity.ts';
import { lostEndReceipt, type LostEndDeps } from '../functions/execution-receipt.ts';
import { runningExecutionsPage, storeEnd, type End, type RunningExecutionRow } from '../functions/execution.sql.ts';
import { labelAttributes } from '../shared/workflow-attributes.ts';
import { rowSweep } from './row-sweep.ts';
import type { WorkflowState } from './workflow-state.ts';
import { executionErrorName, executionStatus, workflowStanding, type ExecutionOutcome } from '../shared/outcomes.ts';

/** What the reconciler's process ends lost executions with, beside its entity manager: its networks and signer. */
export type LostEnds = Omit<LostEndDeps, 'em'>;

/** An execution to start: its workflow never started. */
interface UnstartedExecution {
  executionId: string;
  labels: SearchAttributePair[];
}

/**
 * One page of the executions still `running` once `graceMs` has passed, each held against its
 * workflow: one that never started is handed back to be started (an invoke or a retry whose start
 * failed, or whose process died before it); one that closed without storing its end is ended now,
 * from the workflow's outcome or else as `ExecutionLostError`, signed; one still running is left to run.
 */
export const sweepExecutions = (ends: LostEnds) =>
  rowSweep(
    runningExecutionsPage,
    async (em, row, state) => {
      // An automation's run starts its own execution: the runs' sweep starts the run.
      if (state.state === workflowStanding.missing) return row.run_id ? undefined : { start: unstartedOf(row) };
      if (state.state !== workflowStanding.closed) return undefined;
      return (await endLost({ ...ends, em }, row.id, state, row.run_id !== null)) ? 'ended' : undefined;
    },
    // An execution an automation's run started is held against the run's workflow.
    (row) => row.run_id ?? row.id,
  );

const unstartedOf = (row: RunningExecutionRow): UnstartedExecution => ({
  executionId: row.id,
  labels: labelAttributes({ accountId: row.account_id, functionId: row.function_id, trigger: row.trigger_type }),
});

/**
 * Ends an execution whose workflow closed while its row still says `running`; false when another
 * process ended it first. The outcome of an execution's own workflow says how it ended (its logs
 * and result were lost with the write that failed); a run's workflow returns the run's outcome,
 * which says nothing of the execution's. A failed end is signed as it is stored (lostEndReceipt).
 */
export async function endLost(
  deps: LostEndDeps,
  executionId: string,
  state: Extract<WorkflowState, { state: typeof workflowStanding.closed }>,
  inRun: boolean,
): Promise<boolean> {
  const execution = await deps.em.findOne(Execution, { id: executionId }, { populate: ['function'] });
  if (!execution || execution.status !== executionStatus.running) return false;
  const outcome = inRun ? undefined : (state.outcome as ExecutionOutcome | undefined);
  const completedAt = new Date();
  const end: End = {
    status: outcome?.status === executionStatus.completed ? executionStatus.completed : executionStatus.failed,
    secretsRead: execution.secretsRead,
    logs: execution.logs,
    error: errorOf(outcome, state.reason),
    completedAt,
    duration: outcome?.durationMs ?? completedAt.getTime() - execution.startedAt.getTime(),
  };
  if (!(await storeEnd(deps.em, executionId, end, undefined, await lostEndReceipt(deps, execution, end)))) return false;
  countEnded(outcomeOf(end), execution.trigger as ExecutionTrigger);
  return true;
}

function errorOf(outcome: ExecutionOutcome | undefined, reason: string): End['error'] {
  if (outcome?.status === executionStatus.completed) return null;
  if (outcome?.status === executionStatus.failed) {
    const name = outcome.errorName ?? executionErrorName.ExecutionLostError;
    return { name, message: 'The execution failed; its logs and error could not be stored.', stack: '' };
  }
  // `deleted`: the workflow found no row to run (it was stored late), so the code never ran.
  const why = outcome?.status === 'deleted' ? 'its workflow ran before its record was stored' : reason;
  return { name: executionErrorName.ExecutionLostError, message: `The execution could not be run: ${why}.`, stack: '' };
}

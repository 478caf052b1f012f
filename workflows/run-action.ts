import {
  CancellationScope,
  isCancellation,
  proxyActivities,
  proxyLocalActivities,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import type { RunStatus } from '../activities/automations.ts';
import { endStatus } from '../src/temporal/workflow-attributes.ts';
import { runFunction } from './run-function.ts';

const retry = { maximumAttempts: 10, initialInterval: '1 second', maximumInterval: '30 seconds' };

/** Local activities: a few rows read and written, without a round trip through the task queue. */
const { beginRun, finishFunctionRun, failRun } = proxyLocalActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry,
});

const { prepareContractRun } = proxyActivities<Activities>({ startToCloseTimeout: '30 seconds', retry });

/**
 * Relaying waits for a block, at most until the transaction's validUntilBlock passes (about 100
 * blocks); heartbeats notice a lost worker within seconds, and the retry re-sends the same
 * stored transaction.
 */
const { relayContractRun } = proxyActivities<Activities>({
  startToCloseTimeout: '30 minutes',
  heartbeatTimeout: '10 seconds',
  retry: { maximumAttempts: 20, initialInterval: '1 second', maximumInterval: '30 seconds' },
});

/**
 * One run's action, a child of what fired it; the workflow id is the run id. A function action
 * runs the code in this same workflow (its execution's record names the automation), so a fire
 * reaches the code through one workflow beyond the trigger's own. How it ended is also set on
 * the workflow (`NeoflowStatus`), where an operator filters for what to retry.
 */
export async function runAction(runId: string): Promise<RunStatus> {
  const status = await act(runId);
  if (status !== 'running') upsertSearchAttributes([endStatus(status)]);
  return status;
}

async function act(runId: string): Promise<RunStatus> {
  try {
    const plan = await beginRun(runId);
    if (plan.kind === 'ended') return plan.status;
    if (plan.kind === 'function') {
      upsertSearchAttributes(plan.labels);
      await runFunction(plan.executionId);
      return await finishFunctionRun(runId);
    }
    const prepared = await prepareContractRun(runId);
    if (prepared !== 'sent') return prepared;
    return await relayContractRun(runId);
  } catch (error) {
    // Cancelled too (its function deleted, or an operator): the run still ends, as a failure.
    const reason = rootMessage(error);
    await CancellationScope.nonCancellable(() => failRun(runId, reason));
    if (isCancellation(error)) throw error;
    return 'failure';
  }
}

/**
 * The innermost message: an activity's failure wraps its cause ("Activity task failed"), and the
 * run records what went wrong, not the wrapper.
 */
function rootMessage(error: unknown): string {
  let current = error;
  while (current instanceof Error && current.cause instanceof Error) current = current.cause;
  return current instanceof Error ? current.message : String(current);
}

import { WorkflowFailedError, WorkflowNotFoundError, type Client } from '@temporalio/client';
import { rootCause } from '@temporalio/common';
import type { Logger } from '../log.ts';
import { workflowStanding } from '../shared/outcomes.ts';

/** Where a record's workflow stands, as Temporal tells it. */
export type WorkflowState =
  | { state: typeof workflowStanding.missing }
  | { state: typeof workflowStanding.running }
  /**
   * `outcome` is what a completed workflow returned; `reason` says why any other ended, in words
   * fit for a tenant's record; `cause`, for the operator's log only, what a failed one raised.
   */
  | { state: typeof workflowStanding.closed; outcome: unknown; reason: string; cause?: string };

/**
 * The workflow named `workflowId`: never started (or its history is gone), still running, or
 * closed with its outcome. A workflow that continued as new is running in its next run.
 */
export async function workflowState(client: Client, workflowId: string): Promise<WorkflowState> {
  const handle = client.workflow.getHandle(workflowId);
  let status: string;
  try {
    status = (await handle.describe()).status.name;
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return { state: workflowStanding.missing };
    throw error;
  }
  if (status === 'RUNNING' || status === 'CONTINUED_AS_NEW' || status === 'PAUSED')
    return { state: workflowStanding.running };
  if (status !== 'COMPLETED' && status !== 'FAILED') {
    return {
      state: workflowStanding.closed,
      outcome: undefined,
      reason: `its workflow was ${status.toLowerCase().replace('_', ' ')}`,
    };
  }
  try {
    return { state: workflowStanding.closed, outcome: await handle.result(), reason: 'its workflow completed' };
  } catch (error) {
    if (!(error instanceof WorkflowFailedError)) throw error;
    // What a workflow raised is internal text (an address, a query, a stack): never on a record.
    return {
      state: workflowStanding.closed,
      outcome: undefined,
      reason: 'its workflow failed',
      cause: rootCause(error) ?? error.message,
    };
  }
}

/** Logs what a failed workflow raised, which its record does not show, for the operator. */
export function logCause(log: Pick<Logger, 'warn'>, recordId: string, state: WorkflowState) {
  if (state.state === workflowStanding.closed && state.cause !== undefined) {
    log.warn('record ended by the recovery sweep: its workflow failed', { recordId, cause: state.cause });
  }
}

/** Maps `items` with at most `limit` calls in flight: a page's describes, not a burst of them. */
export async function mapBounded<T, R>(items: T[], limit: number, map: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const lane = async () => {
    for (let index = next++; index < items.length; index = next++) results[index] = await map(items[index]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  return results;
}

import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import { ParentClosePolicy, startChild } from '@temporalio/workflow';
import type { FiredRun } from '../activities/automations.ts';
import { runAction } from './run-action.ts';

/**
 * Starts a run's action as a child that outlives its parent (a follower or poller goes on and
 * continues as new). The run id is the workflow id, so a run already started stays one action.
 * `taskQueue`: where actions run, when the parent runs on a queue of its own (the follower).
 */
export async function startAction(run: FiredRun, taskQueue?: string): Promise<void> {
  try {
    await startChild(runAction, {
      workflowId: run.runId,
      ...(taskQueue ? { taskQueue } : {}),
      args: [run.runId],
      parentClosePolicy: ParentClosePolicy.ABANDON,
      typedSearchAttributes: run.labels,
    });
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
  }
}

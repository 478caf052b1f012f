import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import { ParentClosePolicy, proxyLocalActivities, startChild } from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import { executeFunction } from './execute-function.ts';

const { unstartedExecutions } = proxyLocalActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { maximumAttempts: 3, initialInterval: '1 second' },
});

/**
 * One pass of the recovery schedule: starts the workflow of every execution recorded but, perhaps,
 * never started. The execution id is the workflow id and a workflow that ever ran under it is
 * never started again, so a run that exists, or existed, stays one run.
 */
export async function recoverySweep(): Promise<number> {
  let started = 0;
  for (const { executionId, labels } of await unstartedExecutions()) {
    try {
      await startChild(executeFunction, {
        workflowId: executionId,
        args: [executionId],
        parentClosePolicy: ParentClosePolicy.ABANDON,
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
        typedSearchAttributes: labels,
      });
      started++;
    } catch (error) {
      if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
    }
  }
  return started;
}

import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import { ParentClosePolicy, proxyLocalActivities, startChild } from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import { executeFunction } from './execute-function.ts';
import { startAction } from './start-action.ts';
import { startNotifications } from './start-notifications.ts';

const { unstartedExecutions, overdueRuns, undispatchedNotifications } = proxyLocalActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { maximumAttempts: 3, initialInterval: '1 second' },
});

/**
 * One pass of the recovery schedule: starts the workflow of every execution and every automation
 * run and notification recorded but, perhaps, never started, whatever started it. The record's id is the workflow
 * id, and a workflow that ever ran under it is never started again: what exists, or existed, stays
 * one run.
 */
export async function recoverySweep(): Promise<void> {
  await Promise.all((await overdueRuns()).map(startAction));
  await startNotifications(await undispatchedNotifications());
  for (const { executionId, labels } of await unstartedExecutions()) {
    try {
      await startChild(executeFunction, {
        workflowId: executionId,
        args: [executionId],
        parentClosePolicy: ParentClosePolicy.ABANDON,
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
        typedSearchAttributes: labels,
      });
    } catch (error) {
      if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
    }
  }
}

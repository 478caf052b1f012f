import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import type { DeliverNotificationWorkflow } from '../../shared/workflow-signatures.ts';

/** Starts each notification's delivery from a process that holds a client (the API). */
export async function startDeliveries(client: Client, taskQueue: string, notificationIds: string[]) {
  for (const notificationId of notificationIds) {
    try {
      await client.workflow.start<DeliverNotificationWorkflow>('deliverNotification', {
        workflowId: notificationId,
        taskQueue,
        args: [notificationId],
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
      });
    } catch (error) {
      if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
    }
  }
}

import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import type { deliverNotification } from '../../../workflows/deliver-notification.ts';

/** Starts each notification's delivery from a process that holds a client (the API). */
export async function startDeliveries(client: Client, taskQueue: string, notificationIds: string[]) {
  for (const notificationId of notificationIds) {
    try {
      await client.workflow.start<typeof deliverNotification>('deliverNotification', {
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

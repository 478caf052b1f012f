import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import { ParentClosePolicy, startChild } from '@temporalio/workflow';
import { deliverNotification } from './deliver-notification.ts';

/**
 * Starts each notification's delivery as a child that outlives its parent. The notification id is
 * the workflow id, so a notification started before stays one delivery.
 */
export async function startNotifications(notificationIds: string[]): Promise<void> {
  for (const notificationId of notificationIds) {
    try {
      await startChild(deliverNotification, {
        workflowId: notificationId,
        args: [notificationId],
        parentClosePolicy: ParentClosePolicy.ABANDON,
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
      });
    } catch (error) {
      if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
    }
  }
}

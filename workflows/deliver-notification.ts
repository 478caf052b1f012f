import { proxyActivities, proxyLocalActivities } from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import { deliveryAttemptTimeout, deliveryRetry } from '../src/shared/delivery-policy.ts';
import { inTurn } from './in-turn.ts';
import { rootMessage } from './root-message.ts';
import { notificationStatus } from '../src/shared/outcomes.ts';
import type { DeliverNotificationWorkflow } from '../src/shared/workflow-signatures.ts';

/**
 * Each attempt is an activity on a worker process: a lost worker's attempt times out and is
 * retried. It waits for its account's turn on a worker (workflows/in-turn.ts).
 */
const { sendNotification } = proxyActivities<Activities>({
  startToCloseTimeout: deliveryAttemptTimeout,
  retry: deliveryRetry,
});

const { failNotification } = proxyLocalActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { maximumAttempts: 10, initialInterval: '1 second', maximumInterval: '30 seconds' },
});

/** One notification, delivered once per event: the workflow id is the notification id. */
export const deliverNotification: DeliverNotificationWorkflow = async (notificationId) => {
  try {
    return await inTurn((attemptsMade) => sendNotification(notificationId, attemptsMade));
  } catch (error) {
    await failNotification(notificationId, rootMessage(error));
    return notificationStatus.failed;
  }
};

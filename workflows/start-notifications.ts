import { deliverNotification } from './deliver-notification.ts';
import { startOnce } from './start-once.ts';

/** Starts each notification's delivery; the notification id is the workflow id. */
export async function startNotifications(notificationIds: string[]): Promise<void> {
  for (const notificationId of notificationIds) await startOnce(deliverNotification, notificationId);
}

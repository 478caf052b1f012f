import type { EntityManager } from '@mikro-orm/postgresql';
import type { EgressPolicy } from '../../egress/egress-policy.ts';
import type { MasterKeys } from '../../crypto/envelope.ts';
import { revealSecrets } from '../../secrets/secret-store.ts';
import { revealCredentials } from '../credentials/credential-store.ts';
import { mapChannel } from '../credentials/credentials.ts';
import { channelRequest, channelSecret } from './channel-requests.ts';
import { Notification } from './notification.entity.ts';
import { postJson } from './post-json.ts';
import { notificationStatus, type NotificationStatus } from '../../shared/outcomes.ts';

interface SendDeps {
  em: EntityManager;
  masterKeys: MasterKeys;
  egress: EgressPolicy;
  telegramApiUrl: string;
}

interface Attempt {
  number: number;
  last: boolean;
}

/** Another attempt is due; the row says how this one went. */
interface RetrySend {
  retry: string;
}

/**
 * One attempt at delivering a notification through the egress guard. The row counts the
 * attempts and keeps the last answer; a 2xx marks it delivered, a final answer (or the last
 * attempt) failed. A notification already settled is not sent again.
 */
export async function sendNotification(
  deps: SendDeps,
  notificationId: string,
  attempt: Attempt,
): Promise<NotificationStatus | 'gone' | RetrySend> {
  const notification = await deps.em.findOne(Notification, { id: notificationId });
  if (!notification) return 'gone';
  if (notification.status !== notificationStatus.pending) return notification.status;
  notification.attempts = attempt.number;
  notification.dispatched = true;
  const secretName = channelSecret(notification.channel);
  const secrets = secretName ? await revealSecrets(deps.em, deps.masterKeys, notification.accountId, [secretName]) : [];
  let post;
  try {
    const channel = await revealCredentials(deps.em, deps.masterKeys, notification.automation.id, (r) =>
      mapChannel(notification.channel, `notify.${notification.rule}.channel`, r),
    );
    const context = { id: notification.id, secret: secrets[0]?.value, telegramApiUrl: deps.telegramApiUrl };
    post = channelRequest(channel, notification.message, context);
  } catch (error) {
    return settle(deps.em, notification, notificationStatus.failed, null, (error as Error).message);
  }
  const delivery = await postJson(deps.egress, post);
  if (delivery.kind === 'delivered')
    return settle(deps.em, notification, notificationStatus.delivered, delivery.status, null);
  if (delivery.kind === 'retry' && !attempt.last) {
    Object.assign(notification, { lastStatus: delivery.status, lastError: delivery.detail });
    await deps.em.flush();
    return { retry: delivery.detail };
  }
  return settle(deps.em, notification, notificationStatus.failed, delivery.status, delivery.detail);
}

/** The last word when no attempt could even run (every one timed out): failed. */
export async function failNotification(em: EntityManager, notificationId: string, reason: string) {
  const notification = await em.findOne(Notification, { id: notificationId });
  if (notification?.status === notificationStatus.pending)
    await settle(em, notification, notificationStatus.failed, notification.lastStatus ?? null, reason);
}

async function settle(
  em: EntityManager,
  notification: Notification,
  status: NotificationStatus,
  lastStatus: number | null,
  lastError: string | null,
) {
  Object.assign(notification, { status, lastStatus, lastError, dispatched: true, completedAt: new Date() });
  await em.flush();
  return status;
}

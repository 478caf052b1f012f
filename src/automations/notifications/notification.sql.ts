import type { EntityManager } from '@mikro-orm/postgresql';
import { jsonbParam } from '../../db/jsonb-param.ts';
import type { Notification } from './notification.entity.ts';
import { notificationStatus } from '../../shared/outcomes.ts';
import { sweepPage } from '../../db/sweep-page.ts';

/** The hand-written statements of the `notifications` table. */

const insertSql = `insert into "notifications"
  ("id", "automation_id", "account_id", "run_id", "rule", "event", "event_key", "channel", "message", "status", "created_at")
  values (?, ?, ?, ?, ?, ?, ?, ?, ?, '${notificationStatus.pending}', now())
  on conflict ("automation_id", "rule", "event_key") do nothing`;

/** A notification to record, pending; once per (automation, rule, event key). */
interface NewNotification {
  id: string;
  automationId: string;
  accountId: string;
  runId: string | null;
  rule: number;
  event: Notification['event'];
  eventKey: string;
  channel: unknown;
  message: Notification['message'];
}

/** Records the notification unless its rule told its event already. */
export async function insertNotification(em: EntityManager, notification: NewNotification) {
  const { id, automationId, accountId, runId, rule, event, eventKey } = notification;
  const channel = jsonbParam(notification.channel);
  const message = jsonbParam(notification.message);
  await em.execute(insertSql, [id, automationId, accountId, runId, rule, event, eventKey, channel, message]);
}

/** The notifications of one cause of `automationId`, new or not, in the order of their rules. */
export async function notificationsOf(em: EntityManager, automationId: string, eventKey: string): Promise<string[]> {
  const rows = await em.execute<{ id: string }[]>(
    `select "id" from "notifications" where "automation_id" = ? and "event_key" = ? order by "rule"`,
    [automationId, eventKey],
  );
  return rows.map((row) => row.id);
}

/** Pending notifications whose delivery has not begun, past the grace, over their partial index. */
const pageSql = `select "id", "created_at"::text as "cursor_at" from "notifications"
where not "dispatched" and "status" = '${notificationStatus.pending}' and "created_at" < now() - make_interval(secs => ?)
  and ("created_at", "id") > (cast(? as timestamptz), ?)
order by "created_at", "id" limit ?`;

/** Up to `limit` of them after the keyset (`at`, `id`). */
export const undispatchedPage = sweepPage<{ id: string; cursor_at: string }>(pageSql);

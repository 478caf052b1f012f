import type { EntityManager } from '@mikro-orm/postgresql';
import { jsonbParam } from '../../db/jsonb-param.ts';
import type { Automation } from '../automation.entity.ts';
import { newId } from '../../ids.ts';
import { type Cause, notificationMessage } from './messages.ts';

const insertNotification = `insert into "notifications"
  ("id", "automation_id", "account_id", "run_id", "rule", "event", "event_key", "channel", "message", "status", "created_at")
  values (?, ?, ?, ?, ?, ?, ?, ?, ?, 'pending', now())
  on conflict ("automation_id", "rule", "event_key") do nothing`;

type Notified = Pick<Automation, 'id' | 'name' | 'notify'> & { account: { id: string } };

/**
 * Records what `cause` tells each of the given rules, once per rule and cause (`eventKey`): a
 * repeated step records nothing new. Returns the ids of the cause's notifications, new or not,
 * each to be delivered by its own workflow (a cause's key names one event, told once per rule).
 */
export async function recordNotifications(
  em: EntityManager,
  automation: Notified,
  rules: number[],
  eventKey: string,
  cause: Cause,
): Promise<string[]> {
  if (rules.length === 0) return [];
  const message = jsonbParam(notificationMessage(automation, cause));
  for (const rule of rules) {
    const channel = jsonbParam(automation.notify[rule]!.channel);
    await em.execute(insertNotification, [
      newId('ntf'),
      automation.id,
      automation.account.id,
      cause.run?.id ?? null,
      rule,
      cause.event,
      eventKey,
      channel,
      message,
    ]);
  }
  return notificationsOf(em, automation.id, eventKey);
}

/** The notifications of one cause of `automationId`, new or not, in the order of their rules. */
export async function notificationsOf(em: EntityManager, automationId: string, eventKey: string): Promise<string[]> {
  const rows = await em.execute<{ id: string }[]>(
    `select "id" from "notifications" where "automation_id" = ? and "event_key" = ? order by "rule"`,
    [automationId, eventKey],
  );
  return rows.map((row) => row.id);
}

/** The rules of `automation` that tell `event`. */
export const rulesFor = (automation: Pick<Automation, 'notify'>, event: Cause['event']) =>
  automation.notify.flatMap((rule, index) => (rule.on.includes(event) ? [index] : []));

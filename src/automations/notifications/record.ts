/**
 * notifications/: what an automation tells its channels (a run's failure and recovery, an error, a
 * signer low on gas). A cause is recorded here once per rule; deliveries.control.ts starts a
 * workflow per notification and send.ts posts it through the egress guard. Depends on the ground
 * (model/) and credentials/ only.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Automation } from '../model/automation.entity.ts';
import { newId } from '../../ids.ts';
import { type Cause, notificationMessage } from './messages.ts';
import { insertNotification, notificationsOf } from './notification.sql.ts';

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
  const message = notificationMessage(automation, cause);
  for (const rule of rules) {
    await insertNotification(em, {
      id: newId('ntf'),
      automationId: automation.id,
      accountId: automation.account.id,
      runId: cause.run?.id ?? null,
      rule,
      event: cause.event,
      eventKey,
      channel: automation.notify[rule]!.channel,
      message,
    });
  }
  return notificationsOf(em, automation.id, eventKey);
}

/** The rules of `automation` that tell `event`. */
export const rulesFor = (automation: Pick<Automation, 'notify'>, event: Cause['event']) =>
  automation.notify.flatMap((rule, index) => (rule.on.includes(event) ? [index] : []));

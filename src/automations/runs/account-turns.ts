import type { EntityManager } from '@mikro-orm/postgresql';
import { Notification } from '../notifications/notification.entity.ts';
import { AutomationRun } from '../model/run.entity.ts';

/**
 * What an automation's activity that waits on the world (a receiver's answer, a block) needs to
 * know before it starts: whose it is. Each process lets an account hold only a few activity slots
 * at once (`NEOFLOW_ACCOUNT_ACTIVITIES`), so one account's slow receivers leave the others room.
 * Undefined once the row is gone: the step itself then answers as it does for a deleted row.
 */
export async function accountOfRun(em: EntityManager, runId: string): Promise<string | undefined> {
  return (await em.findOne(AutomationRun, { id: runId }, { fields: ['accountId'] }))?.accountId;
}

export async function accountOfNotification(em: EntityManager, notificationId: string): Promise<string | undefined> {
  return (await em.findOne(Notification, { id: notificationId }, { fields: ['accountId'] }))?.accountId;
}

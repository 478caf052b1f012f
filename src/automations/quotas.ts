import type { EntityManager } from '@mikro-orm/postgresql';
import type { Config } from '../config.ts';
import { AppError } from '../errors.ts';
import { automationsOfAccount } from './automation.sql.ts';
import type { Trigger } from './automations.schemas.ts';
import { shortestIntervalSeconds } from './cron.ts';

type Quotas = Config['quotas'];

/**
 * A schedule that fires, or a price that is read, more often than the deployment allows is
 * refused: each fire and each read takes a share of the workers every account relies on.
 */
export function assertTriggerInterval(quotas: Quotas, trigger: Trigger) {
  if (trigger.type === 'schedule') {
    const seconds = shortestIntervalSeconds(trigger.cron);
    if (seconds < quotas.shortestScheduleSeconds) {
      throw intervalTooShort(
        'trigger.cron',
        `The schedule fires every ${seconds} s at times; the shortest interval allowed is ${quotas.shortestScheduleSeconds} s.`,
        quotas.shortestScheduleSeconds,
      );
    }
  }
  if (trigger.type === 'price' && trigger.pollInterval !== undefined) {
    if (trigger.pollInterval < quotas.shortestPollSeconds) {
      throw intervalTooShort(
        'trigger.pollInterval',
        `The price would be read every ${trigger.pollInterval} s; the shortest interval allowed is ${quotas.shortestPollSeconds} s.`,
        quotas.shortestPollSeconds,
      );
    }
  }
}

const intervalTooShort = (field: string, message: string, shortestSeconds: number) =>
  new AppError('interval_too_short', message, { field, shortestSeconds });

/**
 * An account at its number of automations creates no more until it deletes some. Asked in the
 * transaction that inserted the new one, whose insert counted it and holds the account's count
 * until the commit (automationsOfAccount): creates racing at the limit wait for one another at
 * their insert, see each other's rows counted, and never pass it.
 */
export async function assertAutomationRoom(em: EntityManager, limit: number, accountId: string) {
  if ((await automationsOfAccount(em, accountId)) <= limit) return;
  throw new AppError(
    'automation_limit_reached',
    `This account has ${limit} automations, the most it may have; delete one to create another.`,
    { limit },
  );
}

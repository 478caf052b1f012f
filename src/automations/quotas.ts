import type { Config } from '../config.ts';
import { AppError } from '../errors.ts';
import type { Trigger } from './model/trigger.schemas.ts';
import { shortestIntervalSeconds } from './model/cron.ts';

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
 * An account at its number of automations creates no more until it deletes some: its insert is
 * refused by the count PostgreSQL keeps (insertAutomation), which racing creates take in turn.
 */
export const automationLimitReached = (limit: number) =>
  new AppError(
    'automation_limit_reached',
    `This account has ${limit} automations, the most it may have; delete one to create another.`,
    { limit },
  );

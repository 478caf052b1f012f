import { AppError } from '../../errors.ts';
import { shortestIntervalSeconds } from '../model/cron.ts';
import type { ScheduleTrigger } from '../model/trigger.schemas.ts';

/**
 * A schedule that fires more often than the deployment allows (`shortestSeconds`) is refused:
 * each fire takes a share of the workers every account relies on.
 */
export function refuseFrequentSchedule(trigger: ScheduleTrigger, shortestSeconds: number) {
  const seconds = shortestIntervalSeconds(trigger.cron);
  if (seconds >= shortestSeconds) return;
  throw new AppError(
    'interval_too_short',
    `The schedule fires every ${seconds} s at times; the shortest interval allowed is ${shortestSeconds} s.`,
    { field: 'trigger.cron', shortestSeconds },
  );
}

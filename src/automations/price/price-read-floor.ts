import { AppError } from '../../errors.ts';
import type { PriceTrigger } from '../model/trigger.schemas.ts';

/**
 * A price read more often than the deployment allows (`shortestSeconds`) is refused: each read
 * takes a share of the workers every account relies on.
 */
export function refuseFrequentPriceReads(trigger: PriceTrigger, shortestSeconds: number) {
  const seconds = trigger.pollInterval;
  if (seconds === undefined || seconds >= shortestSeconds) return;
  throw new AppError(
    'interval_too_short',
    `The price would be read every ${seconds} s; the shortest interval allowed is ${shortestSeconds} s.`,
    { field: 'trigger.pollInterval', shortestSeconds },
  );
}

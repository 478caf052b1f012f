import type { NotifyEvent, NotifyRule } from '../model/notify.schemas.ts';
import { runStatus } from '../../shared/outcomes.ts';

interface RuleEvent {
  /** The rule's index in the automation's `notify`. */
  rule: number;
  event: NotifyEvent;
}

/** The longest streak any rule waits for: counting further changes nothing a rule tells. */
export const lookBack = (rules: NotifyRule[]) => Math.max(1, ...rules.map((rule) => rule.afterFailures ?? 1));

/** A run's place among the failures in a row around it, each counted up to `lookBack`. */
interface RunStreak {
  /** Failed runs in a row that ended just before this one. */
  before: number;
  /** A failed run: the failed runs in a row it belongs to as far as ended yet, itself included. */
  length: number;
}

/**
 * What a run's end tells: `failure` once its streak reaches or passes `afterFailures` (told once
 * per streak: the caller keys it by where the streak began, so runs ending together, each seeing
 * another part of the streak, still tell it once), `recovery` when a success ends a streak that
 * reached the threshold.
 */
export function runEndEvents(
  rules: NotifyRule[],
  status: typeof runStatus.success | typeof runStatus.failure,
  streak: RunStreak,
): RuleEvent[] {
  return rules.flatMap((rule, index): RuleEvent[] => {
    const after = rule.afterFailures ?? 1;
    if (status === runStatus.failure && rule.on.includes(runStatus.failure) && streak.length >= after) {
      return [{ rule: index, event: runStatus.failure }];
    }
    if (status === runStatus.success && rule.on.includes('recovery') && streak.before >= after) {
      return [{ rule: index, event: 'recovery' }];
    }
    return [];
  });
}

import type { NotifyEvent, NotifyRule } from './notify.schemas.ts';

export interface RuleEvent {
  /** The rule's index in the automation's `notify`. */
  rule: number;
  event: NotifyEvent;
}

/** How many statuses before a run's end decide what it tells: enough to see every rule's streak. */
export const lookBack = (rules: NotifyRule[]) => Math.max(1, ...rules.map((rule) => rule.afterFailures ?? 1));

const leadingFailures = (statuses: string[]) => {
  const firstOther = statuses.findIndex((status) => status !== 'failure');
  return firstOther === -1 ? statuses.length : firstOther;
};

/**
 * What a run's end tells, from its status and those of the runs that ended before it (newest
 * first, `lookBack` of them): `failure` when this failure makes exactly `afterFailures` in a row
 * (so not again until the streak breaks), `recovery` when a success ends a streak that was told.
 */
export function runEndEvents(rules: NotifyRule[], status: 'success' | 'failure', before: string[]): RuleEvent[] {
  const streakBefore = leadingFailures(before);
  return rules.flatMap((rule, index): RuleEvent[] => {
    const after = rule.afterFailures ?? 1;
    if (status === 'failure' && rule.on.includes('failure') && streakBefore + 1 === after) {
      return [{ rule: index, event: 'failure' }];
    }
    if (status === 'success' && rule.on.includes('recovery') && streakBefore >= after) {
      return [{ rule: index, event: 'recovery' }];
    }
    return [];
  });
}

import { nonMatchingWatcher, type Trigger } from './automation-runs.ts';

/** A migrating team's automations (issue 34): the share of each kind in bench:scale's set. */
export type Kind = 'watchers' | 'prices' | 'schedules';
export const share: Record<Kind, number> = { watchers: 0.4, prices: 0.3, schedules: 0.3 };

/**
 * The i-th hourly schedule, at its own second of the hour: i × 1223 (prime to 3,600) spreads any
 * first n of them over the whole hour, so that a steady window sees about n / 60 fires whichever
 * minute it falls in (consecutive seconds filled minutes 0–49 at 3,000 and left 50–59 silent).
 */
export const hourly = (i: number): Trigger => {
  const second = (i * 1223) % 3600;
  return { type: 'schedule', cron: `${second % 60} ${Math.floor(second / 60)} * * * *` };
};

/** The i-th price trigger: one of `sources` distinct URLs of the bench's price server, never met. */
export const priceOn =
  (url: string, sources: number, pollSeconds: number) =>
  (i: number): Trigger => ({
    type: 'price',
    asset: 'NEO',
    condition: 'above',
    value: '1000',
    currency: 'USD',
    source: { url: url.replace('/price/', `/price/s${i % sources}/`), path: 'data.price' },
    pollInterval: pollSeconds,
  });

/** Each kind's i-th trigger: watchers of GAS that never match the transfers to `recipient`. */
export const mixTriggers = (recipient: string, priceUrl: string, sources: number, pollSeconds: number) =>
  ({
    watchers: nonMatchingWatcher(recipient),
    prices: priceOn(priceUrl, sources, pollSeconds),
    schedules: hourly,
  }) satisfies Record<Kind, (i: number) => Trigger>;

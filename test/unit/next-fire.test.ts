import { describe, expect, it } from 'vitest';
import { nextFireTime } from '../../src/automations/next-fire.ts';

const at = (iso: string) => new Date(iso);

describe('a schedule trigger’s next fire time, computed as the Temporal server does', () => {
  it.each([
    ['*/15 9-17 * * MON-FRI', 'UTC', '2026-11-26T08:12:28Z', '2026-11-26T09:00:00.000Z'],
    ['*/15 9-17 * * MON-FRI', 'UTC', '2026-11-26T09:00:00Z', '2026-11-26T09:15:00.000Z'],
    // Friday evening: the next weekday is Monday.
    ['*/15 9-17 * * MON-FRI', 'UTC', '2026-11-27T17:45:00Z', '2026-11-30T09:00:00.000Z'],
    ['0 0 1 1 *', 'UTC', '2026-11-26T08:12:28Z', '2027-01-01T00:00:00.000Z'],
    ['@yearly', 'Europe/Moscow', '2026-11-26T08:12:28Z', '2026-12-31T21:00:00.000Z'],
    ['@hourly', 'UTC', '2026-11-26T08:12:28Z', '2026-11-26T09:00:00.000Z'],
    ['@weekly', 'UTC', '2026-11-26T08:12:28Z', '2026-11-29T00:00:00.000Z'],
    // Six fields put seconds first.
    ['*/10 * * * * *', 'UTC', '2026-11-26T08:12:28Z', '2026-11-26T08:12:30.000Z'],
    ['30 0 8 * * 1-5', 'Asia/Tokyo', '2026-11-26T08:12:28Z', '2026-11-26T23:00:30.000Z'],
    // `a/n` runs to the field's end; 7 is Sunday.
    ['10/20 * * * *', 'UTC', '2026-11-26T08:12:28Z', '2026-11-26T08:30:00.000Z'],
    ['0 12 * * 7', 'UTC', '2026-11-26T08:12:28Z', '2026-11-29T12:00:00.000Z'],
    // Day of month AND day of week: the next Friday the 13th.
    ['0 0 13 * FRI', 'UTC', '2026-11-26T08:12:28Z', '2027-08-13T00:00:00.000Z'],
    ['0 0 29 2 *', 'UTC', '2026-11-26T08:12:28Z', '2028-02-29T00:00:00.000Z'],
    // 02:30 does not exist in New York on 8 March 2026: that day is skipped.
    ['30 2 * * *', 'America/New_York', '2026-03-08T05:00:00Z', '2026-03-09T06:30:00.000Z'],
    ['30 2 * * *', 'America/New_York', '2026-11-26T08:12:28Z', '2026-11-27T07:30:00.000Z'],
  ])('%j in %s after %s fires at %s', (cron, timezone, after, expected) => {
    expect(nextFireTime(cron, timezone, at(after))?.toISOString()).toBe(expected);
  });

  it('has none for a date that never comes again', () => {
    expect(nextFireTime('0 0 31 2 *', 'UTC', at('2026-11-26T08:12:28Z'))).toBeNull();
  });
});

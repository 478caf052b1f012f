import { describe, expect, it } from 'vitest';
import { nextFireTime } from '../../src/automations/schedule/next-fire.ts';

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

/** A deterministic sequence in [0, 1), so that a failure names the same case again. */
function seeded(seed: number) {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

describe('the next fire time, fast where the reconciler asks it of every schedule', () => {
  it('in UTC, read without Intl, is the time Intl reads for Etc/UTC', () => {
    const random = seeded(34);
    const pick = (max: number) => Math.floor(random() * max);
    const crons = [
      () => `${pick(60)} ${pick(60)} * * * *`,
      () => `*/${1 + pick(30)} * * * *`,
      () => `${pick(60)} ${pick(24)} * * ${['MON-FRI', 'SUN', '*', '1,3,5'][pick(4)]}`,
      () => `0 ${pick(24)} ${1 + pick(31)} ${1 + pick(12)} *`,
      () => `0 0 ${1 + pick(31)} * ${pick(7)}`,
    ];
    for (let index = 0; index < 400; index += 1) {
      const cron = crons[index % crons.length]!();
      const after = new Date(Date.UTC(1971, 0, 1) + random() * (Date.UTC(2098, 0, 1) - Date.UTC(1971, 0, 1)));
      expect(nextFireTime(cron, 'UTC', after)?.toISOString(), `${cron} after ${after.toISOString()}`).toBe(
        nextFireTime(cron, 'Etc/UTC', after)?.toISOString(),
      );
    }
  });

  it('steps through months and weekdays as the Date calendar does, leap years included', () => {
    // Midnights matching a day of month and a day of week, found by stepping a Date a day at a time.
    const reference = (dayOfMonth: number, dayOfWeek: number, after: number) => {
      for (let at = Date.UTC(new Date(after).getUTCFullYear(), 0, 1); ; at += 86_400_000) {
        const date = new Date(at);
        if (at > after && date.getUTCDate() === dayOfMonth && date.getUTCDay() === dayOfWeek) return date;
      }
    };
    for (const [dayOfMonth, dayOfWeek] of [
      [29, 1],
      [31, 5],
      [13, 5],
      [1, 0],
    ] as const) {
      for (let year = 1970; year < 2090; year += 7) {
        const after = Date.UTC(year, 5, 15);
        expect(nextFireTime(`0 0 ${dayOfMonth} * ${dayOfWeek}`, 'UTC', new Date(after))).toEqual(
          reference(dayOfMonth, dayOfWeek, after),
        );
      }
    }
  });
});

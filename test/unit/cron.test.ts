import { describe, expect, it } from 'vitest';
import { InvalidCronError, scheduleCron, shortestIntervalSeconds } from '../../src/automations/model/cron.ts';

describe('cron triggers for Temporal schedules', () => {
  it.each([
    // Five fields: the server reads minute..day-of-week, as we do.
    ['*/15 9-17 * * MON-FRI', '*/15 9-17 * * MON-FRI'],
    ['0 0 1 1 *', '0 0 1 1 *'],
    ['30 2 * * 7', '30 2 * * 7'],
    ['5,10-20/5,59 0-23/6 1,15 jan-Mar sun,sat', '5,10-20/5,59 0-23/6 1,15 jan-Mar sun,sat'],
    ['  0   12 * *  *  ', '0 12 * * *'],
    // `?` means "any" in day-of-month and day-of-week; the server only knows `*`.
    ['0 12 ? * MON', '0 12 * * MON'],
    ['0 12 1 * ?', '0 12 1 * *'],
    ['10/20 * * * *', '10/20 * * * *'],
    // Six fields put seconds first; the server would read a sixth field as the year.
    ['* * * * * *', '* * * * * * *'],
    ['0 */5 * * * *', '0 */5 * * * * *'],
    ['30 0 8 * * 1-5', '30 0 8 * * 1-5 *'],
    ['59 59 23 31 12 6', '59 59 23 31 12 6 *'],
    ['@daily', '@daily'],
    ['@HOURLY', '@hourly'],
    ['@weekly', '@weekly'],
    ['@monthly', '@monthly'],
    ['@yearly', '@yearly'],
    ['@annually', '@annually'],
    ['@midnight', '@midnight'],
  ])('accepts %j as %j', (expression, translated) => {
    expect(scheduleCron(expression)).toBe(translated);
  });

  it.each([
    ['', 'the cron expression is empty'],
    ['   ', 'the cron expression is empty'],
    ['* * * *', 'the cron expression has 4 fields, not 5'],
    ['* * * * * * *', 'the cron expression has 7 fields, not 5'],
    ['0 25 * * *', 'field 2 (hour) "25" is out of range 0-23'],
    ['60 * * * *', 'field 1 (minute) "60" is out of range 0-59'],
    ['60 * * * * *', 'field 1 (second) "60" is out of range 0-59'],
    ['0 0 0 * *', 'field 3 (day-of-month) "0" is out of range 1-31'],
    ['0 0 32 * *', 'field 3 (day-of-month) "32" is out of range 1-31'],
    ['0 0 * 13 *', 'field 4 (month) "13" is out of range 1-12'],
    ['0 0 * * 8', 'field 5 (day-of-week) "8" is out of range 0-7'],
    ['0 0 * FOO *', 'field 4 (month) "FOO" is not a number or a name (JAN-DEC)'],
    ['0 0 * * MONDAY', 'field 5 (day-of-week) "MONDAY" is not a number or a name (SUN-SAT)'],
    ['0 0 * JAN-DEC MON-FRI-SAT', 'field 5 (day-of-week) "MON-FRI-SAT" is malformed'],
    ['x * * * *', 'field 1 (minute) "x" is not a number'],
    ['-1 * * * *', 'field 1 (minute) "" is not a number'],
    ['1.5 * * * *', 'field 1 (minute) "1.5" is not a number'],
    ['0 17-9 * * *', 'field 2 (hour) range "17-9" ends before it starts'],
    ['*/0 * * * *', 'field 1 (minute) step "/0" must be a number from 1 to 59'],
    ['*/60 * * * *', 'field 1 (minute) step "/60" must be a number from 1 to 59'],
    ['0 */24 * * *', 'field 2 (hour) step "/24" must be a number from 1 to 23'],
    ['*/ * * * *', 'field 1 (minute) step "/" must be a number from 1 to 59'],
    ['1/2/3 * * * *', 'field 1 (minute) "1/2/3" is malformed'],
    ['1,,2 * * * *', 'field 1 (minute) "" is malformed'],
    ['? * * * *', 'field 1 (minute) "?" is allowed only in day-of-month and day-of-week'],
    ['0 0 L * *', 'field 3 (day-of-month) "L" is not a number'],
    ['0 0 * * 5#3', 'field 5 (day-of-week) "5#3" is not a number'],
    ['@every 5m', '"@every 5m" is not a supported macro'],
    ['@reboot', '"@reboot" is not a supported macro'],
    // The time zone is a field of its own: a server-side TZ= prefix would be read as seconds.
    ['TZ=UTC 0 0 * * *', 'field 1 (second) "TZ=UTC" is not a number'],
    ['0 0 * * #', 'field 5 (day-of-week) "#" is not a number'],
  ])('refuses %j', (expression, message) => {
    const attempt = () => scheduleCron(expression);
    expect(attempt).toThrow(InvalidCronError);
    expect(attempt).toThrow(message);
  });

  it('names its error so callers can tell it from a bug', () => {
    expect(() => scheduleCron('nope')).toThrow(expect.objectContaining({ name: 'InvalidCronError' }));
  });

  it.each([
    ['* * * * * *', 1],
    ['*/10 * * * * *', 10],
    ['*/7 * * * * *', 4],
    ['0,30 * * * * *', 30],
    ['5,10-20/5,59 * * * * *', 5],
    ['50/5 * * * * *', 5],
    ['58/5 * * * * *', 60],
    ['0 */5 * * * *', 60],
    ['*/15 9-17 * * MON-FRI', 60],
    ['@hourly', 60],
  ])('reads the shortest interval of %j as %i s', (expression, seconds) => {
    expect(shortestIntervalSeconds(expression)).toBe(seconds);
  });
});

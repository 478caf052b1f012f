import type { Automation } from '../model/automation.entity.ts';
import type { ScheduleTrigger } from '../model/trigger.schemas.ts';
import { scheduleCron } from '../model/cron.ts';

/** An automation's next fire time: a schedule's while it is active; null for other triggers. */
export function nextFireOf(automation: Automation, now = new Date()): Date | null {
  if (automation.triggerType !== 'schedule' || automation.status !== 'active') return null;
  const trigger = automation.trigger as ScheduleTrigger;
  return nextFireTime(trigger.cron, trigger.timezone ?? 'UTC', now);
}

/**
 * A schedule trigger's next fire time, computed here as the Temporal server computes it
 * (service/worker/scheduler/calendar.go): a read needs no round trip to Temporal, and answers
 * while Temporal is down. The server's rules: five fields fire at second 0; day-of-month AND
 * day-of-week must both match; `a/n` runs from `a` to the field's end; 7 is Sunday too; a local
 * time a DST change skips does not fire; nothing fires after 2100.
 */
export function nextFireTime(cron: string, timezone: string, after: Date): Date | null {
  const calendar = compiled(cron);
  const zone = zoneOf(timezone);
  let { year, month, day, hour, minute, second } = zone.local(after.getTime());
  second += 1;
  for (;;) {
    if (second >= 60) [minute, second] = [minute + 1, 0];
    if (minute >= 60) [hour, minute] = [hour + 1, 0];
    if (hour >= 24) [day, hour] = [day + 1, 0];
    if (day > daysIn(year, month)) [month, day] = [month + 1, 1];
    if (month > 12) [year, month] = [year + 1, 1];
    if (year > lastYear) return null;
    if (!calendar.month[month]) [month, day, hour, minute, second] = [month + 1, 1, 0, 0, 0];
    else if (!calendar.dayOfMonth[day] || !calendar.dayOfWeek[weekday(year, month, day)])
      [day, hour, minute, second] = [day + 1, 0, 0, 0];
    else if (!calendar.hour[hour]) [hour, minute, second] = [hour + 1, 0, 0];
    else if (!calendar.minute[minute]) [minute, second] = [minute + 1, 0];
    else if (!calendar.second[second]) second += 1;
    else {
      const instant = zone.instant(year, month, day, hour, minute, second);
      // Skipped by a change to daylight saving time: the server moves on to the next hour.
      if (zone.local(instant).hour !== hour) [hour, minute, second] = [hour + 1, 0, 0];
      else if (instant > after.getTime()) return new Date(instant);
      else second += 1;
    }
  }
}

/** The server's calendar ends here. */
const lastYear = 2100;

const macros: Record<string, string> = {
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *',
  '@monthly': '0 0 1 * *',
  '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *',
  '@midnight': '0 0 * * *',
  '@hourly': '0 * * * *',
};

const monthNames = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'];
const dayNames = ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'];

/** Which values of each field match, indexed by value. */
interface Calendar {
  second: boolean[];
  minute: boolean[];
  hour: boolean[];
  dayOfMonth: boolean[];
  month: boolean[];
  dayOfWeek: boolean[];
}

/**
 * The calendar of the cron last asked for: the reconciler asks for each schedule's next few fire
 * times in a row (schedule-drift.ts, schedule-stall.ts), one schedule after another.
 */
let last: { cron: string; calendar: Calendar } | undefined;

function compiled(cron: string): Calendar {
  if (last?.cron !== cron) last = { cron, calendar: compile(scheduleCron(cron)) };
  return last.calendar;
}

/** `translated` is what scheduleCron hands the server: 5 fields, 7 (seconds first, year `*`) or a macro. */
function compile(translated: string): Calendar {
  const parts = (macros[translated] ?? translated).split(' ');
  const [second, minute, hour, dayOfMonth, month, dayOfWeek] = parts.length === 7 ? parts : ['0', ...parts];
  const days = field(dayOfWeek!, 0, 7, dayNames, 0);
  days[0] = days[0]! || days[7]!;
  return {
    second: field(second!, 0, 59),
    minute: field(minute!, 0, 59),
    hour: field(hour!, 0, 23),
    dayOfMonth: field(dayOfMonth!, 1, 31),
    month: field(month!, 1, 12, monthNames, 1),
    dayOfWeek: days,
  };
}

function field(text: string, min: number, max: number, names: string[] = [], firstName = 0): boolean[] {
  const value = (token: string) => {
    const named = names.indexOf(token.toUpperCase());
    return named >= 0 ? named + firstName : Number(token);
  };
  const matches = new Array<boolean>(max + 1).fill(false);
  for (const part of text.split(',')) {
    const [range = '*', step] = part.split('/');
    const [from, to] = range.split('-');
    const start = range === '*' ? min : value(from!);
    const end = range === '*' ? max : to !== undefined ? value(to) : step !== undefined ? max : start;
    for (let at = start; at <= end; at += step === undefined ? 1 : Number(step)) matches[at] = true;
  }
  return matches;
}

// Day arithmetic without a Date each step: the search steps through up to an hour of minutes and
// seconds for an hourly cron, and the reconciler asks it of every schedule a pass (issue 34).
const monthDays = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const leap = (year: number) => year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
/** Days in the month; the search may look at month 13 once before it moves on to the next year. */
const daysIn = (year: number, month: number) => (month === 2 && leap(year) ? 29 : (monthDays[month - 1] ?? 31));
const weekdayOffsets = [0, 3, 2, 5, 0, 3, 5, 1, 4, 6, 2, 4];
/** 0 is Sunday (Sakamoto's method, proleptic Gregorian as Date.UTC). */
function weekday(year: number, month: number, day: number) {
  const y = month < 3 ? year - 1 : year;
  return (y + Math.floor(y / 4) - Math.floor(y / 100) + Math.floor(y / 400) + weekdayOffsets[month - 1]! + day) % 7;
}

interface LocalTime {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

const zones = new Map<string, ReturnType<typeof makeZone>>();

/** UTC, the default zone, read from a Date's own fields: Intl's formatToParts costs ~10 µs a call. */
const utc = {
  local(instant: number): LocalTime {
    const date = new Date(instant);
    return {
      year: date.getUTCFullYear(),
      month: date.getUTCMonth() + 1,
      day: date.getUTCDate(),
      hour: date.getUTCHours(),
      minute: date.getUTCMinutes(),
      second: date.getUTCSeconds(),
    };
  },
  instant: (year: number, month: number, day: number, hour: number, minute: number, second: number) =>
    Date.UTC(year, month - 1, day, hour, minute, second),
};

function zoneOf(timezone: string) {
  if (timezone === 'UTC') return utc;
  let zone = zones.get(timezone);
  if (!zone) zones.set(timezone, (zone = makeZone(timezone)));
  return zone;
}

/** Wall-clock time in one zone, both ways, with what Intl knows of its offsets. */
function makeZone(timezone: string) {
  const format = new Intl.DateTimeFormat('en-US', {
    timeZone: timezone,
    hourCycle: 'h23',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
    second: 'numeric',
  });
  const local = (instant: number): LocalTime => {
    const parts = Object.fromEntries(
      format.formatToParts(new Date(instant)).map((part) => [part.type, Number(part.value)]),
    ) as Record<string, number>;
    return {
      year: parts.year!,
      month: parts.month!,
      day: parts.day!,
      hour: parts.hour!,
      minute: parts.minute!,
      second: parts.second!,
    };
  };
  const asUtc = (time: LocalTime) => Date.UTC(time.year, time.month - 1, time.day, time.hour, time.minute, time.second);
  const offsetAt = (instant: number) => asUtc(local(instant)) - Math.floor(instant / 1000) * 1000;
  /** The instant the wall clock shows this time (the offset of the instant found, checked once more). */
  const instant = (year: number, month: number, day: number, hour: number, minute: number, second: number) => {
    const wall = asUtc({ year, month, day, hour, minute, second });
    const first = wall - offsetAt(wall);
    return wall - offsetAt(first);
  };
  return { local, instant };
}

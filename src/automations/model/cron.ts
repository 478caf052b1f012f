/**
 * Cron triggers, checked here and handed to a Temporal Schedule as a cron string.
 *
 * The Temporal server (service/worker/scheduler/calendar.go, parseCronString, v1.29) reads
 * 5 fields as minute..day-of-week, 6 fields as minute..day-of-week + YEAR and 7 fields as
 * second..day-of-week + year. Our 6-field form puts seconds first, so it gets a year `*` appended.
 * The server also fails on `?`, matches macros only in lower case, and fires only when day-of-month
 * AND day-of-week both match (classic cron fires when either does).
 */

export class InvalidCronError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InvalidCronError';
  }
}

interface Field {
  name: string;
  min: number;
  max: number;
  /** Three-letter names, the first standing for `min`. */
  names?: readonly string[];
  /** `?` (no specific value, as in Quartz) is the server's `*`. */
  allowsQuestionMark?: boolean;
}

const second: Field = { name: 'second', min: 0, max: 59 };
const minute: Field = { name: 'minute', min: 0, max: 59 };
const hour: Field = { name: 'hour', min: 0, max: 23 };
const dayOfMonth: Field = { name: 'day-of-month', min: 1, max: 31, allowsQuestionMark: true };
const month: Field = {
  name: 'month',
  min: 1,
  max: 12,
  names: ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'],
};
// 7 is Sunday too; the server reads it so.
const dayOfWeek: Field = {
  name: 'day-of-week',
  min: 0,
  max: 7,
  names: ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'],
  allowsQuestionMark: true,
};

const minuteFirst = [minute, hour, dayOfMonth, month, dayOfWeek];
const secondFirst = [second, ...minuteFirst];

const macros = new Set(['@yearly', '@annually', '@monthly', '@weekly', '@daily', '@midnight', '@hourly']);

/** The cron string for a ScheduleSpec's `cronExpressions`; throws InvalidCronError naming what is wrong. */
export function scheduleCron(expression: string): string {
  const text = expression.trim();
  if (text === '') throw new InvalidCronError('the cron expression is empty');
  if (text.startsWith('@')) return macro(text);
  const parts = text.split(/\s+/);
  const fields = parts.length === 5 ? minuteFirst : parts.length === 6 ? secondFirst : null;
  if (!fields) {
    throw new InvalidCronError(
      `the cron expression has ${parts.length} fields, not 5 (minute hour day-of-month month day-of-week) or 6 (second first)`,
    );
  }
  const normalized = parts.map((part, index) => normalizeField(part, fields[index]!, index + 1));
  return fields === secondFirst ? `${normalized.join(' ')} *` : normalized.join(' ');
}

function macro(text: string): string {
  const name = text.toLowerCase();
  if (!macros.has(name)) {
    throw new InvalidCronError(`"${text}" is not a supported macro: use @hourly, @daily, @weekly, @monthly or @yearly`);
  }
  return name;
}

function normalizeField(text: string, field: Field, position: number): string {
  const describe = `field ${position} (${field.name})`;
  if (text === '?') {
    if (field.allowsQuestionMark) return '*';
    throw new InvalidCronError(`${describe} "?" is allowed only in day-of-month and day-of-week`);
  }
  for (const part of text.split(',')) checkPart(part, field, describe);
  return text;
}

function checkPart(part: string, field: Field, describe: string): void {
  const [range = '', step, ...extra] = part.split('/');
  if (extra.length > 0 || range === '') throw new InvalidCronError(`${describe} "${part}" is malformed`);
  if (step !== undefined) checkStep(step, field, describe);
  if (range === '*') return;
  const [from = '', to, ...more] = range.split('-');
  if (more.length > 0) throw new InvalidCronError(`${describe} "${part}" is malformed`);
  const start = value(from, field, describe);
  if (to !== undefined && value(to, field, describe) < start) {
    throw new InvalidCronError(`${describe} range "${range}" ends before it starts`);
  }
}

// A step as large as the whole field would select a single value: almost surely a mistake.
function checkStep(step: string, field: Field, describe: string): void {
  const largest = field.max - field.min;
  const n = /^\d+$/.test(step) ? Number(step) : NaN;
  if (!(n >= 1 && n <= largest)) {
    throw new InvalidCronError(`${describe} step "/${step}" must be a number from 1 to ${largest}`);
  }
}

function value(text: string, field: Field, describe: string): number {
  const named = field.names?.indexOf(text.toUpperCase()) ?? -1;
  if (named >= 0) return field.min + named;
  if (!/^\d+$/.test(text)) {
    const names = field.names ? ` or a name (${field.names[0]}-${field.names.at(-1)})` : '';
    throw new InvalidCronError(`${describe} "${text}" is not a number${names}`);
  }
  const n = Number(text);
  if (n < field.min || n > field.max) {
    throw new InvalidCronError(`${describe} "${text}" is out of range ${field.min}-${field.max}`);
  }
  return n;
}

/**
 * The shortest time between two fires of a valid cron expression, in seconds, as far as the
 * seconds field tells: 60 for a 5-field expression or a macro (at most once a minute), else the
 * smallest gap between two of the seconds it names, counting the one across a minute's end.
 */
export function shortestIntervalSeconds(expression: string): number {
  const parts = expression.trim().split(/\s+/);
  if (parts.length !== 6) return 60;
  const seconds = [...secondsOf(parts[0]!)].sort((a, b) => a - b);
  let shortest = seconds[0]! + 60 - seconds.at(-1)!;
  for (let index = 1; index < seconds.length; index++) {
    shortest = Math.min(shortest, seconds[index]! - seconds[index - 1]!);
  }
  return shortest;
}

/** The seconds a valid seconds field names (`*`, `a` or `a-b`, each with an optional `/step`). */
function secondsOf(field: string): Set<number> {
  const named = new Set<number>();
  for (const part of field.split(',')) {
    const [range = '', step = '1'] = part.split('/');
    const [from = '', to] = range.split('-');
    const whole = range === '*';
    const first = whole ? second.min : Number(from);
    // `a/step` runs to the field's end, as `a-59/step` does.
    const last = whole || (to === undefined && part.includes('/')) ? second.max : Number(to ?? from);
    for (let value = first; value <= last; value += Number(step)) named.add(value);
  }
  return named;
}

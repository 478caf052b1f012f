/** How the console writes values for people: local times, GAS with 8 decimals, short hashes. */

const gasDecimals = 8;

/** GAS fractions (10^-8 GAS, as the chain counts them and runs answer fees): `"123456789"` → `"1.23456789"`. */
export function gasFromFractions(fractions: string | null | undefined): string {
  if (fractions === null || fractions === undefined || !/^-?\d+$/.test(fractions)) return '—';
  const negative = fractions.startsWith('-');
  const digits = (negative ? fractions.slice(1) : fractions).padStart(gasDecimals + 1, '0');
  const whole = digits.slice(0, -gasDecimals).replace(/^0+(?=\d)/, '');
  return `${negative ? '-' : ''}${whole}.${digits.slice(-gasDecimals)}`;
}

/** A GAS amount as the API writes decimals (`"5.5"`), with 8 decimals: `"5.50000000"`. */
export function gasFromDecimal(decimal: string | null | undefined): string {
  if (decimal === null || decimal === undefined || !/^-?\d+(\.\d{1,8})?$/.test(decimal)) return '—';
  const [whole, fraction = ''] = decimal.split('.');
  return `${whole}.${fraction.padEnd(gasDecimals, '0')}`;
}

/** The start and end of a hash or address, the middle elided: `0x1234…cdef`. */
export function shortHash(value: string, keep = 6): string {
  return value.length <= keep * 2 + 1 ? value : `${value.slice(0, keep)}…${value.slice(-keep)}`;
}

/** An ISO time in the browser's zone and language, to the second. */
export function localTime(iso: string, locale?: string, timeZone?: string): string {
  return new Date(iso).toLocaleString(locale, {
    year: 'numeric',
    month: 'short',
    day: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    timeZoneName: 'short',
    ...(timeZone ? { timeZone } : {}),
  });
}

/** The same time in UTC, ISO-like, for the hover. */
export function utcTime(iso: string): string {
  return `${new Date(iso)
    .toISOString()
    .replace('T', ' ')
    .replace(/\.\d+Z$/, '')} UTC`;
}

interface Trigger {
  type: string;
  [field: string]: unknown;
}

const text = (value: unknown) => (typeof value === 'string' || typeof value === 'number' ? String(value) : '');

/** A trigger said in words: `every minute (* * * * *)`, `Transfer events of 0xd2a4…`. */
export function triggerInWords(trigger: Trigger): string {
  switch (trigger.type) {
    case 'schedule': {
      const cron = text(trigger.cron);
      const zone = trigger.timezone ? ` (${text(trigger.timezone)})` : '';
      return `${cronInWords(cron)}${zone}`;
    }
    case 'blockchain': {
      const event = trigger.event ? `${text(trigger.event)} events` : 'every event';
      return `${event} of ${shortHash(text(trigger.scriptHash))}`;
    }
    case 'transaction':
      return 'transactions matching a filter';
    case 'price': {
      const { asset, currency, condition, value } = trigger as Record<string, unknown>;
      const compare = condition === 'below' ? 'falls below' : condition === 'above' ? 'rises above' : text(condition);
      return `${text(asset)} ${compare} ${text(value)} ${text(currency)}`.trim();
    }
    case 'state':
      return `${text(trigger.operation)} of ${shortHash(text(trigger.scriptHash))} changes`;
    default:
      return trigger.type;
  }
}

const cronWords: Record<string, string> = {
  '* * * * * *': 'every second',
  '* * * * *': 'every minute',
  '0 * * * *': 'every hour',
  '0 0 * * *': 'every day at midnight',
  '@hourly': 'every hour',
  '@daily': 'every day at midnight',
  '@midnight': 'every day at midnight',
  '@weekly': 'every week',
  '@monthly': 'every month',
  '@yearly': 'every year',
  '@annually': 'every year',
};

export function cronInWords(cron: string): string {
  const known = cronWords[cron.trim()];
  if (known) return `${known} (${cron})`;
  const everyMinutes = /^\*\/(\d+) \* \* \* \*$/.exec(cron.trim());
  if (everyMinutes) return `every ${everyMinutes[1]} minutes (${cron})`;
  return `on the schedule ${cron}`;
}

/** The failures at the head of a newest-first list of runs: the failures in a row so far. */
export function failuresInRow(runs: { status: string }[]): number {
  const firstOther = runs.findIndex((run) => run.status !== 'failure');
  return firstOther === -1 ? runs.length : firstOther;
}

import { storableText } from '../db/storable.ts';

/** A value an event may show: short, and never a secret (see `safeValue`). */
type SummaryValue = string | number | boolean | null;

/**
 * What changed, field by field: `fields` names every field the change set (a body's top-level
 * fields, or dotted paths), `values` shows those that are safe to show. A field absent from
 * `values` was changed without its value being kept: code, a secret's value, a webhook's URL, a
 * template, arguments.
 */
export interface AuditSummary {
  fields?: string[];
  values?: Record<string, SummaryValue>;
}

/** Bounds, so that a summary fits the column's 4 KiB whatever a request held. */
const maxFields = 24;
const maxValues = 16;
const maxNameLength = 48;
const maxValueLength = 100;
const maxBytes = 3800;
const redacted = '[redacted]';

/**
 * Anything a caller marked safe is still refused if it looks like a credential or a URL: an API
 * key (`nf_…`), a WIF, text with a scheme (`https://…`), or a path that could name a target.
 */
const looksSecret = [/nf_[A-Za-z0-9_-]{20,}/, /\b[KL5][1-9A-HJ-NP-Za-km-z]{50,51}\b/, /[a-z][a-z0-9+.-]*:\/\//i, /^\//];

/** A value bounded and checked: numbers and booleans as they are, text cut, anything else dropped. */
export function safeValue(value: unknown): SummaryValue | undefined {
  if (value === null || typeof value === 'boolean') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value !== 'string') return undefined;
  if (looksSecret.some((pattern) => pattern.test(value))) return redacted;
  return storableText(value.length > maxValueLength ? `${value.slice(0, maxValueLength - 1)}…` : value);
}

const fieldName = (name: string) => storableText(name.slice(0, maxNameLength));

/**
 * The summary of a change to `input` (a validated body): every field it sets, and the values of
 * those listed in `shown` only. `extra` adds values the caller knows safe (a version, a type).
 */
export function changeSummary(
  input: Record<string, unknown> | undefined,
  shown: readonly string[] = [],
  extra: Record<string, unknown> = {},
): AuditSummary {
  const set = Object.entries(input ?? {}).filter(([, value]) => value !== undefined);
  const values: Record<string, unknown> = {};
  for (const [name, value] of set) if (shown.includes(name)) values[name] = value;
  return bounded({ fields: set.map(([name]) => name), values: { ...values, ...extra } });
}

/** A summary of values only (what was signed, a fire's cause). */
export const valuesSummary = (values: Record<string, unknown>): AuditSummary => bounded({ values });

/** The summary as stored: bounded in count, length and bytes; values checked by `safeValue`. */
export function bounded(summary: { fields?: string[]; values?: Record<string, unknown> }): AuditSummary {
  const result: AuditSummary = {};
  if (summary.fields?.length) result.fields = summary.fields.slice(0, maxFields).map(fieldName);
  const values = Object.entries(summary.values ?? {})
    .map(([name, value]) => [fieldName(name), safeValue(value)] as const)
    .filter((entry): entry is readonly [string, SummaryValue] => entry[1] !== undefined)
    .slice(0, maxValues);
  if (values.length > 0) result.values = Object.fromEntries(values);
  // Multi-byte text could still pass the column's bound: the values go first, the fields stay.
  if (Buffer.byteLength(JSON.stringify(result)) > maxBytes) delete result.values;
  return result;
}

/** A GAS budget's limits as values (`budget.perDay`: "5"), or `budget: null` when it is removed. */
export function budgetValues(budget: Partial<Record<'perRun' | 'perDay' | 'total', string>> | null | undefined) {
  if (budget === undefined) return {};
  if (budget === null) return { budget: null };
  return Object.fromEntries(Object.entries(budget).map(([limit, gas]) => [`budget.${limit}`, gas]));
}

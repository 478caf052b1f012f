import { JsonType, TextType, type Platform, type TransformContext } from '@mikro-orm/core';

/**
 * The one boundary between what runs produce (user code's logs, errors and results, RPC answers,
 * receivers' bodies, chain data) and PostgreSQL, which cannot store U+0000 in text or jsonb and
 * refuses a lone UTF-16 surrogate in jsonb: both become U+FFFD, the character Unicode reserves for
 * "something was here that could not be kept". A write of a run's record then never fails on its
 * content, which would lose the record and retry the work that produced it (a function run again,
 * a webhook POSTed again, a block followed again forever). Client requests never get here with
 * such text: the API refuses them (src/api/storable-text.ts). Every statement that writes such a
 * value goes through this module: plain statements with `jsonbParam` (jsonb-param.ts), entities
 * with the `StorableJson`/`StorableText` column types.
 */
const replacement = '\uFFFD';

/** `text` as PostgreSQL stores it: U+0000 and lone surrogates become U+FFFD. */
export function storableText(text: string): string {
  return (text.includes('\0') ? text.replaceAll('\0', replacement) : text).toWellFormed();
}

/**
 * `value` with every string and key storable, for a value kept in memory as it is stored (the
 * answer to a synchronous invoke is the stored record). Plain objects and arrays are walked; any
 * other object (a Date) is left as it is, its JSON form being storable already.
 */
export function storable<T>(value: T): T {
  return clean(value) as T;
}

function clean(value: unknown): unknown {
  if (typeof value === 'string') return storableText(value);
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map(clean);
  const prototype: unknown = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) return value;
  return Object.fromEntries(Object.entries(value).map(([key, inner]) => [storableText(key), clean(inner)]));
}

/** `JSON.stringify(value)` with every string and key storable, whatever objects it holds. */
export function storableJson(value: unknown): string {
  return JSON.stringify(value, storableReplacer);
}

// Sees every value after its toJSON: strings are made storable here, keys by rebuilding their
// object (whose values JSON.stringify then visits in turn).
function storableReplacer(this: unknown, _key: string, value: unknown): unknown {
  if (typeof value === 'string') return storableText(value);
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  const keys = Object.keys(value);
  if (keys.every((key) => storableText(key) === key)) return value;
  return Object.fromEntries(keys.map((key) => [storableText(key), (value as Record<string, unknown>)[key]]));
}

/** A `jsonb` column an entity writes run-time values to: written through `storableJson`. */
export class StorableJson extends JsonType {
  override convertToDatabaseValue(value: unknown, platform: Platform, context?: TransformContext): string | null {
    return value == null ? super.convertToDatabaseValue(value, platform, context) : storableJson(value);
  }
}

/** A `text` column an entity writes run-time values to: written through `storableText`. */
export class StorableText extends TextType {
  override convertToDatabaseValue(value: string | null | undefined) {
    return typeof value === 'string' ? storableText(value) : value;
  }
}

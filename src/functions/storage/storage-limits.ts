import { storableText } from '../../db/storable.ts';
import { ServiceError } from '../../sandbox/service-error.ts';
import { executionErrorName } from '../../shared/outcomes.ts';

/** What bounds a function's store (docs/functions.md, "Storage"). */
export const storageLimits = {
  /** Characters of a key. */
  keyChars: 256,
  /** Bytes of one value as UTF-8 JSON text. */
  valueBytes: 64 * 1024,
  /** Keys one function keeps. */
  keys: 1000,
  /** Bytes of all its values together, as UTF-8 JSON text. */
  bytes: 4 * 1024 * 1024,
  /** Keys one `list` answers at most, and by default. */
  listLimit: 1000,
  listDefault: 100,
} as const;

/** C0 controls and DEL: nothing a terminal acts on is ever printed as a key. */
const hasControlCharacter = (text: string) =>
  [...text].some((character) => character.charCodeAt(0) < 0x20 || character.charCodeAt(0) === 0x7f);

/** Why a key is refused, or undefined for a key the store takes. */
export function keyProblem(key: unknown): string | undefined {
  if (typeof key !== 'string') return 'a storage key must be a string';
  if (key.length === 0) return 'a storage key must not be empty';
  if (key.length > storageLimits.keyChars) return `a storage key is at most ${storageLimits.keyChars} characters`;
  // Keys are stored and shown in clear: text PostgreSQL keeps as it is.
  if (hasControlCharacter(key) || storableText(key) !== key)
    return 'a storage key must not hold control characters or lone surrogates';
  return undefined;
}

/** `key` checked for a run: a StorageKeyError the code can read otherwise. */
export function storageKey(key: unknown): string {
  const problem = keyProblem(key);
  if (problem) throw new ServiceError(executionErrorName.StorageKeyError, `${problem}.`);
  return key as string;
}

/** Bytewise order of UTF-8, the order PostgreSQL's `C` collation lists keys in. */
export const byKeyOrder = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));

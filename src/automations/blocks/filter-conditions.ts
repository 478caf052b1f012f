import { normalizeHash160, vmIntegerPattern } from '../../chain/contract-args.ts';
import { booleanOf, bytesOf, decodeAs, decodeItem, integerOf, type StackItem } from '../../chain/stack-item.ts';
import { filterOperators, type Filter, type FilterOperators, type FilterValue } from '../model/filter.schemas.ts';

/**
 * A filter's conditions on one event argument, parsed once per trigger object (the follower loads
 * its watchers once a round), never once per notification compared: the follower is shared by
 * every account. What each holds, and how an argument reads when a condition does not.
 */
export interface Condition {
  key: string;
  /** The filter's value as the trigger gives it: what an explanation says was expected. */
  expected: FilterValue;
  holds(item: StackItem, type: string | null): boolean;
}

/** A filter value, parsed once: as the value itself, and as the integer or boolean it may stand for. */
interface Expected {
  value: unknown;
  integer: bigint | null;
  boolean: boolean | null;
}

type Test = (item: StackItem, type: string | null) => boolean;

export function conditionsOf(filter: Filter | undefined): Condition[] {
  return Object.entries(filter ?? {}).map(([key, value]) => ({ key, expected: value, holds: testOf(value) }));
}

function testOf(value: FilterValue): Test {
  if (!isOperators(value)) {
    const expected = expectedOf(value);
    return (item, type) => equals(item, type, expected);
  }
  // What the schema refuses (an object that is no operators) never matches, were it stored.
  if (!Object.keys(value).every((key) => (filterOperators as readonly string[]).includes(key))) return () => false;
  const tests: Test[] = [];
  const order = (bound: string | number | undefined, accept: (sign: number) => boolean) => {
    if (bound === undefined) return;
    const limit = BigInt(bound);
    tests.push((item) => {
      const actual = integerOf(item);
      return actual !== null && accept(compare(BigInt(actual), limit));
    });
  };
  order(value.gt, (sign) => sign > 0);
  order(value.gte, (sign) => sign >= 0);
  order(value.lt, (sign) => sign < 0);
  order(value.lte, (sign) => sign <= 0);
  if (value.ne !== undefined) {
    const expected = expectedOf(value.ne);
    tests.push((item, type) => !equals(item, type, expected));
  }
  if (value.in !== undefined) {
    const listed = value.in.map(expectedOf);
    tests.push((item, type) => listed.some((expected) => equals(item, type, expected)));
  }
  if (value.contains !== undefined) {
    const part = value.contains;
    tests.push((item, type) => contains(readAs(item, type), part));
  }
  return tests.length === 0 ? () => false : (item, type) => tests.every((test) => test(item, type));
}

const isOperators = (value: FilterValue): value is FilterOperators => typeof value === 'object' && value !== null;

const compare = (a: bigint, b: bigint) => (a > b ? 1 : a < b ? -1 : 0);

/** How an argument reads: by its ABI type, else from its stack item alone (as the payload shows it). */
export const readAs = (item: StackItem, type: string | null): unknown =>
  type ? decodeAs(item, type) : decodeItem(item);

/** A text that holds `part`, or a list with an item equal to it. */
function contains(actual: unknown, part: string): boolean {
  if (typeof actual === 'string') return actual.includes(part);
  return Array.isArray(actual) && actual.some((entry) => samePrimitive(entry, part));
}

/**
 * Filters name accounts by address far more often than they change: the follower compares every
 * watcher's filter with every notification of its contract in every block, and decoding an address
 * (base58 and a double SHA-256) costs more than the rest of the match. Bounded: cleared when full.
 */
const hash160Memo = new Map<string, string | null>();
const hash160MemoSize = 10_000;

function hash160Of(value: string): string | null {
  const known = hash160Memo.get(value);
  if (known !== undefined) return known;
  if (hash160Memo.size >= hash160MemoSize) hash160Memo.clear();
  const hash = normalizeHash160(value);
  hash160Memo.set(value, hash);
  return hash;
}

function expectedOf(value: unknown): Expected {
  // More digits than a NeoVM integer has (256 bits) can equal no Integer: never parsed.
  const integer =
    typeof value === 'number' && Number.isSafeInteger(value)
      ? BigInt(value)
      : typeof value === 'string' && vmIntegerPattern.test(value)
        ? BigInt(value)
        : null;
  const boolean = value === true || value === 'true' ? true : value === false || value === 'false' ? false : null;
  return { value, integer, boolean };
}

function equals(item: StackItem, type: string | null, expected: Expected): boolean {
  const { value } = expected;
  // null stands for Any: a mint's missing `from`, a burn's missing `to`.
  if (value === null || item.type === 'Any') return value === null && item.type === 'Any';
  switch (type ?? guessType(item, value)) {
    case 'Hash160':
      return typeof value === 'string' && hash160Of(value) === hash160Read(item);
    case 'Integer': {
      const actual = integerOf(item);
      return expected.integer !== null && actual !== null && BigInt(actual) === expected.integer;
    }
    case 'Boolean':
      return expected.boolean !== null && booleanOf(item) === expected.boolean;
    default:
      return samePrimitive(readAs(item, type), value);
  }
}

// Without an ABI, 20 bytes compared with an address or script hash are most likely an account.
function guessType(item: StackItem, expected: unknown): string | null {
  if (item.type === 'Integer' || item.type === 'Boolean') return item.type;
  const isAccount = bytesOf(item)?.length === 20 && typeof expected === 'string' && hash160Of(expected) !== null;
  return isAccount ? 'Hash160' : null;
}

function samePrimitive(actual: unknown, expected: unknown): boolean {
  const primitive = (value: unknown) => ['string', 'number', 'boolean'].includes(typeof value);
  return primitive(actual) && primitive(expected) && String(actual) === String(expected);
}

/**
 * A string filter value equals an argument the ABI types Hash160 exactly when
 * `hash160Key(value) === hash160Read(item)` (`equals` asks just that), so that the block follower
 * can look watchers up by `hash160Key` of their value (block-matching.ts). `hash160Key` is null
 * for a value that names no account (it equals an argument read as null); `hash160Read` is
 * undefined for an argument no string equals (Any, or one that reads as no hash).
 */
export const hash160Key = (value: string): string | null => hash160Of(value);

export function hash160Read(item: StackItem): string | null | undefined {
  if (item.type === 'Any') return undefined;
  const actual = decodeAs(item, 'Hash160');
  return typeof actual === 'string' || actual === null ? actual : undefined;
}

/** A sender as a trigger names it (address or script hash), as `0x` and lower-case hex; null if neither. */
export const senderHash = (value: string) => hash160Of(value);

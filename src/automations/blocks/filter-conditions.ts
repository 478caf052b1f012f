import { filterOperators, type Filter, type FilterOperators, type FilterValue } from '../model/filter.schemas.ts';
import { accountOf, FilterValues, type Decoded } from './filter-values.ts';
import type { NotificationArgument } from './notification-argument.ts';

/**
 * A filter's conditions on one event argument, parsed once per trigger object (the follower keeps
 * its watchers' triggers until they change, watcher-index.ts), never once per notification
 * compared: the follower is shared by every account. Each condition costs a few set lookups and
 * integer comparisons on an argument read once per notification, whatever the number of values
 * it lists (filter-values.ts).
 */
export interface Condition {
  key: string;
  /** The filter's value as the trigger gives it: what an explanation says was expected. */
  expected: FilterValue;
  holds(argument: NotificationArgument): boolean;
  /**
   * For a string value: the account it names as a `0x` script hash (null when none), so that an
   * argument the ABI types Hash160 equals it exactly when its `hash160` reading is that (the block
   * follower looks watchers up by it, block-matching.ts). Null for any other value.
   */
  account(): string | null;
}

type Test = (argument: NotificationArgument) => boolean;

/** `decoded`: the accounts its trigger's values name, shared by all the trigger's conditions. */
export function conditionsOf(filter: Filter | undefined, decoded: Decoded): Condition[] {
  return Object.entries(filter ?? {}).map(([key, value]) => ({
    key,
    expected: value,
    holds: testOf(value, decoded),
    account: () => (typeof value === 'string' ? accountOf(decoded, value) : null),
  }));
}

function testOf(value: FilterValue, decoded: Decoded): Test {
  if (!isOperators(value)) {
    const expected = new FilterValues([value], decoded);
    return (argument) => expected.has(argument);
  }
  // What the schema refuses (an object that is no operators) never matches, were it stored.
  if (!Object.keys(value).every((key) => (filterOperators as readonly string[]).includes(key))) return () => false;
  const tests: Test[] = [];
  const order = (bound: string | number | undefined, accept: (sign: number) => boolean) => {
    if (bound === undefined) return;
    const limit = BigInt(bound);
    tests.push((argument) => {
      const actual = argument.integer;
      return actual !== null && accept(compare(actual, limit));
    });
  };
  order(value.gt, (sign) => sign > 0);
  order(value.gte, (sign) => sign >= 0);
  order(value.lt, (sign) => sign < 0);
  order(value.lte, (sign) => sign <= 0);
  if (value.ne !== undefined) {
    const expected = new FilterValues([value.ne], decoded);
    tests.push((argument) => !expected.has(argument));
  }
  if (value.in !== undefined) {
    const listed = new FilterValues(value.in, decoded);
    tests.push((argument) => listed.has(argument));
  }
  if (value.contains !== undefined) {
    const part = value.contains;
    tests.push((argument) => contains(argument.value, part));
  }
  return tests.length === 0 ? () => false : (argument) => tests.every((test) => test(argument));
}

const isOperators = (value: FilterValue): value is FilterOperators => typeof value === 'object' && value !== null;

const compare = (a: bigint, b: bigint) => (a > b ? 1 : a < b ? -1 : 0);

/** A text that holds `part`, or a list with an item equal to it. */
function contains(actual: unknown, part: string): boolean {
  if (typeof actual === 'string') return actual.includes(part);
  return Array.isArray(actual) && actual.some((entry) => samePrimitive(entry, part));
}

function samePrimitive(actual: unknown, expected: unknown): boolean {
  const primitive = (value: unknown) => ['string', 'number', 'boolean'].includes(typeof value);
  return primitive(actual) && primitive(expected) && String(actual) === String(expected);
}

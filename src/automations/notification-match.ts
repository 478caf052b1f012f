import type { EventParameter } from '../chain/blocks.ts';
import { normalizeHash160, vmIntegerPattern } from '../chain/contract-args.ts';
import {
  booleanOf,
  bytesOf,
  decodeAs,
  decodeItem,
  integerOf,
  stateItems,
  type StackItem,
} from '../chain/stack-item.ts';

/** A contract notification from an application log. */
export interface Notification {
  /** 0x script hash. */
  contract: string;
  eventName: string;
  /** An Array item: the event's arguments in ABI order. */
  state: StackItem;
}

/** What a blockchain trigger listens for. */
export interface TriggerFilter {
  scriptHash: string;
  event?: string;
  /** ABI parameter name (or, without an ABI, position "0", "1"…) → the value it must have. */
  filter?: Record<string, unknown>;
}

/**
 * The event's arguments in JSON: by parameter name, read as their ABI types say, or without an
 * ABI, a list read from the stack items alone (see decodeItem).
 * Parameters the notification lacks are left out.
 */
export function decodeState(
  state: StackItem,
  parameters: EventParameter[] | null,
): Record<string, unknown> | unknown[] {
  const items = stateItems(state);
  if (!parameters) return items.map(decodeItem);
  const pairs = parameters.flatMap(({ name, type }, index) => {
    const item = items[index];
    return item ? [[name, decodeAs(item, type)] as const] : [];
  });
  return Object.fromEntries(pairs);
}

/** Whether the notification is the trigger's contract and event, with every filtered argument as given. */
export function matches(
  trigger: TriggerFilter,
  notification: Notification,
  parameters: EventParameter[] | null,
): boolean {
  if (bareHash(trigger.scriptHash) !== bareHash(notification.contract)) return false;
  // Neo event names are case-sensitive.
  if (trigger.event !== undefined && trigger.event !== notification.eventName) return false;
  const items = stateItems(notification.state);
  return parsedFilter(trigger).every(([key, expected]) => {
    const index = parameters ? parameters.findIndex((parameter) => parameter.name === key) : position(key);
    const item = items[index];
    if (!item) return false;
    return itemMatches(item, parameters ? parameters[index]!.type : null, expected);
  });
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

/** A filter value, parsed once: as the value itself, and as the integer or boolean it may stand for. */
interface Expected {
  value: unknown;
  integer: bigint | null;
  boolean: boolean | null;
}

/**
 * Filters parsed once per trigger object (the follower loads its watchers once a round), not once
 * per notification compared: the follower is shared by every account.
 */
const parsedFilters = new WeakMap<TriggerFilter, [string, Expected][]>();

function parsedFilter(trigger: TriggerFilter): [string, Expected][] {
  let parsed = parsedFilters.get(trigger);
  if (!parsed) {
    parsed = Object.entries(trigger.filter ?? {}).map(([key, value]) => [key, expectedOf(value)]);
    parsedFilters.set(trigger, parsed);
  }
  return parsed;
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

function bareHash(hash: string): string {
  return hash.toLowerCase().replace(/^0x/, '');
}

function position(key: string): number {
  return /^\d+$/.test(key) ? Number(key) : -1;
}

function itemMatches(item: StackItem, type: string | null, expected: Expected): boolean {
  const { value } = expected;
  // null stands for Any: a mint's missing `from`, a burn's missing `to`.
  if (value === null || item.type === 'Any') return value === null && item.type === 'Any';
  switch (type ?? guessType(item, value)) {
    case 'Hash160':
      return typeof value === 'string' && hash160Of(value) === decodeAs(item, 'Hash160');
    case 'Integer': {
      const actual = integerOf(item);
      return expected.integer !== null && actual !== null && BigInt(actual) === expected.integer;
    }
    case 'Boolean':
      return expected.boolean !== null && booleanOf(item) === expected.boolean;
    default:
      return samePrimitive(type ? decodeAs(item, type) : decodeItem(item), value);
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

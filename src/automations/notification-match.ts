import type { EventParameter } from '../chain/blocks.ts';
import { normalizeHash160 } from '../chain/contract-args.ts';
import type { StackItem } from '../chain/stack-item.ts';

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
  return Object.entries(trigger.filter ?? {}).every(([key, expected]) => {
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

function bareHash(hash: string): string {
  return hash.toLowerCase().replace(/^0x/, '');
}

function position(key: string): number {
  return /^\d+$/.test(key) ? Number(key) : -1;
}

function stateItems(state: StackItem): StackItem[] {
  const isList = state.type === 'Array' || state.type === 'Struct';
  return isList && Array.isArray(state.value) ? (state.value as StackItem[]) : [];
}

function itemMatches(item: StackItem, type: string | null, expected: unknown): boolean {
  // null stands for Any: a mint's missing `from`, a burn's missing `to`.
  if (expected === null || item.type === 'Any') return expected === null && item.type === 'Any';
  switch (type ?? guessType(item, expected)) {
    case 'Hash160':
      return typeof expected === 'string' && hash160Of(expected) === decodeAs(item, 'Hash160');
    case 'Integer':
      return sameInteger(integerOf(item), expected);
    case 'Boolean':
      return sameBoolean(booleanOf(item), expected);
    default:
      return samePrimitive(type ? decodeAs(item, type) : decodeItem(item), expected);
  }
}

// Without an ABI, 20 bytes compared with an address or script hash are most likely an account.
function guessType(item: StackItem, expected: unknown): string | null {
  if (item.type === 'Integer' || item.type === 'Boolean') return item.type;
  const isAccount = bytesOf(item)?.length === 20 && typeof expected === 'string' && hash160Of(expected) !== null;
  return isAccount ? 'Hash160' : null;
}

function sameInteger(actual: string | null, expected: unknown): boolean {
  const wanted =
    typeof expected === 'number' && Number.isSafeInteger(expected)
      ? BigInt(expected)
      : typeof expected === 'string' && /^-?\d+$/.test(expected)
        ? BigInt(expected)
        : null;
  return wanted !== null && actual !== null && BigInt(actual) === wanted;
}

function sameBoolean(actual: boolean | null, expected: unknown): boolean {
  const wanted =
    expected === true || expected === 'true' ? true : expected === false || expected === 'false' ? false : null;
  return wanted !== null && actual === wanted;
}

function samePrimitive(actual: unknown, expected: unknown): boolean {
  const primitive = (value: unknown) => ['string', 'number', 'boolean'].includes(typeof value);
  return primitive(actual) && primitive(expected) && String(actual) === String(expected);
}

/** One item read as an ABI type says; an item that does not fit the type is read generically. */
function decodeAs(item: StackItem, type: string): unknown {
  if (item.type === 'Any') return null;
  const bytes = bytesOf(item);
  switch (type) {
    case 'Hash160':
      return bytes?.length === 20 ? reversedHex(bytes) : decodeItem(item);
    case 'Hash256':
      return bytes?.length === 32 ? reversedHex(bytes) : decodeItem(item);
    case 'Integer':
      return integerOf(item) ?? decodeItem(item);
    case 'Boolean':
      return booleanOf(item) ?? decodeItem(item);
    case 'String':
      return bytes ? bytes.toString('utf8') : decodeItem(item);
    case 'PublicKey':
      return bytes ? bytes.toString('hex') : decodeItem(item);
    case 'ByteArray':
    case 'Signature':
      return bytes ? bytes.toString('base64') : decodeItem(item);
    default:
      return decodeItem(item);
  }
}

/**
 * One item read from its stack type alone. Bytes become text when they are printable UTF-8
 * (event names, symbols, URLs), else base64: a hash read as text would be garbage.
 */
function decodeItem(item: StackItem): unknown {
  switch (item.type) {
    case 'Any':
      return null;
    case 'Integer':
      return String(item.value);
    case 'Boolean':
      return item.value === true;
    case 'ByteString':
    case 'Buffer':
      return readable(bytesOf(item) ?? Buffer.alloc(0));
    case 'Array':
    case 'Struct':
      return stateItems(item).map(decodeItem);
    case 'Map':
      return mapOf(item);
    default:
      return item.value ?? null;
  }
}

// NeoVM map keys are primitives (Integer, Boolean, ByteString), so they read as distinct strings.
function mapOf(item: StackItem): Record<string, unknown> {
  const entries = Array.isArray(item.value) ? (item.value as { key: StackItem; value: StackItem }[]) : [];
  return Object.fromEntries(entries.map(({ key, value }) => [String(decodeItem(key)), decodeItem(value)]));
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

function readable(bytes: Buffer): string {
  try {
    const text = strictUtf8.decode(bytes);
    // eslint-disable-next-line no-control-regex -- control characters are what makes bytes unreadable
    return /[\u0000-\u001f\u007f]/.test(text) ? bytes.toString('base64') : text;
  } catch {
    return bytes.toString('base64');
  }
}

function bytesOf(item: StackItem): Buffer | null {
  const isBytes = item.type === 'ByteString' || item.type === 'Buffer';
  return isBytes && typeof item.value === 'string' ? Buffer.from(item.value, 'base64') : null;
}

// Hashes travel little-endian; explorers and our API show them big-endian.
function reversedHex(bytes: Buffer): string {
  return `0x${Buffer.from(bytes).reverse().toString('hex')}`;
}

/** As NeoVM converts: Integer as is, Boolean as 1/0, bytes as little-endian two's complement. */
function integerOf(item: StackItem): string | null {
  if (item.type === 'Integer') return /^-?\d+$/.test(String(item.value)) ? String(item.value) : null;
  if (item.type === 'Boolean') return item.value === true ? '1' : '0';
  const bytes = bytesOf(item);
  if (!bytes || bytes.length > 32) return null;
  if (bytes.length === 0) return '0';
  const magnitude = BigInt(`0x${Buffer.from(bytes).reverse().toString('hex')}`);
  const negative = (bytes.at(-1)! & 0x80) !== 0;
  return (negative ? magnitude - (1n << BigInt(bytes.length * 8)) : magnitude).toString();
}

/** As NeoVM converts: Integer non-zero, bytes with any non-zero byte. */
function booleanOf(item: StackItem): boolean | null {
  if (item.type === 'Boolean') return item.value === true;
  if (item.type === 'Integer') return item.value !== '0';
  const bytes = bytesOf(item);
  return bytes && bytes.length <= 32 ? bytes.some((byte) => byte !== 0) : null;
}

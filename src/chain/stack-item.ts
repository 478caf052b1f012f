// What the Neo VM answers, as the node's JSON shows it, and how its stack items read as JSON values.

/** A stack item as the node shows it; the shape of `value` depends on `type`. */
export interface StackItem {
  type: string;
  value?: unknown;
}

/** The outcome of a script the node ran without persisting anything (`invokescript`). */
export interface Invocation {
  state: 'HALT' | 'FAULT';
  /** In GAS fractions (10^-8 GAS): the system fee the script needs. */
  gasconsumed: string;
  exception: string | null;
  stack: StackItem[];
}

/** The items of an Array or Struct (an event's arguments); anything else has none. */
export function stateItems(state: StackItem): StackItem[] {
  const isList = state.type === 'Array' || state.type === 'Struct';
  return isList && Array.isArray(state.value) ? (state.value as StackItem[]) : [];
}

/** One item read as an ABI type says; an item that does not fit the type is read generically. */
export function decodeAs(item: StackItem, type: string): unknown {
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
export function decodeItem(item: StackItem): unknown {
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

export function bytesOf(item: StackItem): Buffer | null {
  const isBytes = item.type === 'ByteString' || item.type === 'Buffer';
  return isBytes && typeof item.value === 'string' ? Buffer.from(item.value, 'base64') : null;
}

// Hashes travel little-endian; explorers and our API show them big-endian.
function reversedHex(bytes: Buffer): string {
  return `0x${Buffer.from(bytes).reverse().toString('hex')}`;
}

/** As NeoVM converts: Integer as is, Boolean as 1/0, bytes as little-endian two's complement. */
export function integerOf(item: StackItem): string | null {
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
export function booleanOf(item: StackItem): boolean | null {
  if (item.type === 'Boolean') return item.value === true;
  if (item.type === 'Integer') return item.value !== '0';
  const bytes = bytesOf(item);
  return bytes && bytes.length <= 32 ? bytes.some((byte) => byte !== 0) : null;
}

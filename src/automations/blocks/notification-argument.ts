import { booleanOf, bytesOf, decodeAs, decodeItem, integerOf, type StackItem } from '../../chain/stack-item.ts';

const unread = Symbol('unread');

/**
 * One argument of a notification as filters compare it: with its ABI type (null without an ABI),
 * and each way of reading it (as an account, an integer, a boolean, a value) made at most once,
 * when first asked. The follower compares one notification with every watcher of its contract, so
 * the same object serves all of them (match.ts `argumentsOf`): a reading costs once per
 * notification, not once per watcher and value compared.
 */
export class NotificationArgument {
  #hash160: string | null | undefined | typeof unread = unread;
  #integer: bigint | null | typeof unread = unread;
  #boolean: boolean | null | typeof unread = unread;
  #value: unknown = unread;
  #text: string | null | typeof unread = unread;
  #accountSized: boolean | typeof unread = unread;

  readonly item: StackItem;
  readonly type: string | null;

  constructor(item: StackItem, type: string | null) {
    this.item = item;
    this.type = type;
  }

  /**
   * The argument read as the ABI type Hash160 reads it: `0x` hex for 20 bytes, else as the item
   * reads generically when that is a string or null; undefined for Any or any other reading (no
   * string filter value names it).
   */
  get hash160(): string | null | undefined {
    if (this.#hash160 === unread) {
      const actual = this.item.type === 'Any' ? undefined : decodeAs(this.item, 'Hash160');
      this.#hash160 = typeof actual === 'string' || actual === null ? actual : undefined;
    }
    return this.#hash160;
  }

  /** As NeoVM converts it to an integer; null when it converts to none. */
  get integer(): bigint | null {
    if (this.#integer === unread) {
      const actual = integerOf(this.item);
      this.#integer = actual === null ? null : BigInt(actual);
    }
    return this.#integer;
  }

  get boolean(): boolean | null {
    if (this.#boolean === unread) this.#boolean = booleanOf(this.item);
    return this.#boolean;
  }

  /** As the payload shows it: by its ABI type, else from its stack item alone. */
  get value(): unknown {
    if (this.#value === unread) this.#value = this.type ? decodeAs(this.item, this.type) : decodeItem(this.item);
    return this.#value;
  }

  /** `value` as text when it is a string, number or boolean (what a plain filter value is compared with); else null. */
  get text(): string | null {
    if (this.#text === unread) {
      const actual = this.value;
      this.#text = ['string', 'number', 'boolean'].includes(typeof actual) ? String(actual) : null;
    }
    return this.#text;
  }

  /** Bytes of an account's length: without an ABI, compared with an address as an account. */
  get accountSized(): boolean {
    if (this.#accountSized === unread) this.#accountSized = bytesOf(this.item)?.length === 20;
    return this.#accountSized;
  }
}

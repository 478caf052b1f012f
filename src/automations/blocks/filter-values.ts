import { normalizeHash160, vmIntegerPattern } from '../../chain/contract-args.ts';
import type { NotificationArgument } from './notification-argument.ts';

/**
 * The values an argument is compared with for equality (a plain filter value, `ne`, or the list of
 * an `in`), normalised once per trigger: by the form each ABI type compares, in sets, so that
 * whether an argument equals one of them is a lookup, whatever their number. The accounts they
 * name are decoded (base58 and a double SHA-256, the dearest step of a match) once, on the first
 * comparison that needs them; the trigger's parse keeps them as long as the follower's index keeps
 * the trigger (watcher-index.ts).
 *
 * Equality, value by value: null equals only an absent argument (Any), and nothing else equals
 * Any. Then by the argument's ABI type, or without an ABI, by its stack item (an Integer, a
 * Boolean, or 20 bytes compared with an address or script hash, most likely an account):
 * `Hash160` equals a string naming the same account (a string that names none equals an argument
 * that reads as no hash either); `Integer` an integer of the same value; `Boolean` the same truth;
 * anything else a string, number or boolean of the same text.
 */
export class FilterValues {
  readonly #values: readonly unknown[];
  readonly #hasNull: boolean;
  readonly #integers = new Set<bigint>();
  readonly #booleans = new Set<boolean>();
  /** The text of every value but null. */
  readonly #texts = new Set<string>();
  readonly #decoded: Decoded;
  #read: Accounts | null = null;

  /** `decoded`: the accounts already decoded for the same trigger, shared by all its conditions. */
  constructor(values: readonly unknown[], decoded: Decoded) {
    this.#values = values;
    this.#decoded = decoded;
    this.#hasNull = values.includes(null);
    for (const value of values) {
      const integer = integerOf(value);
      if (integer !== null) this.#integers.add(integer);
      if (value === true || value === 'true') this.#booleans.add(true);
      if (value === false || value === 'false') this.#booleans.add(false);
      if (isPrimitive(value)) this.#texts.add(String(value));
    }
  }

  /**
   * Whether the argument equals one of the values. An argument is read only in the ways some value
   * compares with it (reading may throw: then so does the match, and the firing is quarantined).
   */
  has(argument: NotificationArgument): boolean {
    const { item, type } = argument;
    if (item.type === 'Any') return this.#hasNull;
    switch (type ?? (item.type === 'Integer' || item.type === 'Boolean' ? item.type : null)) {
      case 'Hash160': {
        const { named } = this.#accounts;
        return named.size > 0 && named.has(argument.hash160);
      }
      case 'Integer':
        return argument.integer !== null && this.#integers.has(argument.integer);
      case 'Boolean':
        return argument.boolean !== null && this.#booleans.has(argument.boolean);
      case null:
        if (argument.accountSized) {
          const { addresses, others } = this.#accounts;
          return addresses.has(argument.hash160) || (argument.text !== null && others.has(argument.text));
        }
        return this.#hasText(argument);
      default:
        return this.#hasText(argument);
    }
  }

  #hasText(argument: NotificationArgument): boolean {
    return this.#texts.size > 0 && argument.text !== null && this.#texts.has(argument.text);
  }

  get #accounts(): Accounts {
    this.#read ??= accountsOf(this.#values, this.#decoded);
    return this.#read;
  }
}

/** String values by the account each names as a `0x` script hash, or null when none. */
export type Decoded = Map<string, string | null>;

/** The account a string names, decoded at most once per `decoded` map. */
export function accountOf(decoded: Decoded, value: string): string | null {
  if (decoded.has(value)) return decoded.get(value)!;
  const account = normalizeHash160(value);
  decoded.set(value, account);
  return account;
}

interface Accounts {
  /** What each string value equals typed Hash160: its account, or null for one that names none. */
  named: Set<string | null | undefined>;
  /** Untyped 20 bytes: compared as an account with the values that name one... */
  addresses: Set<string | null | undefined>;
  /** ...and by text with the others. */
  others: Set<string>;
}

function accountsOf(values: readonly unknown[], decoded: Decoded): Accounts {
  const accounts: Accounts = { named: new Set(), addresses: new Set(), others: new Set() };
  for (const value of values) {
    const account = typeof value === 'string' ? accountOf(decoded, value) : null;
    if (typeof value === 'string') accounts.named.add(account);
    if (account !== null) accounts.addresses.add(account);
    else if (isPrimitive(value)) accounts.others.add(String(value));
  }
  return accounts;
}

// More digits than a NeoVM integer has (256 bits) can equal no Integer: never parsed.
function integerOf(value: unknown): bigint | null {
  if (typeof value === 'number') return Number.isSafeInteger(value) ? BigInt(value) : null;
  return typeof value === 'string' && vmIntegerPattern.test(value) ? BigInt(value) : null;
}

const isPrimitive = (value: unknown) => ['string', 'number', 'boolean'].includes(typeof value);

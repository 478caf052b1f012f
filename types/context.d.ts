/**
 * The `context` a Neoflow function receives (docs/functions.md). For an editor:
 * `/** @param {import('./context').Context} context *\/` above the function, with this file beside it.
 * `test/integration/function-types.test.ts` checks that it declares exactly what the sandbox gives.
 */

/** A NEP-17 balance; `amount` is a decimal string in the token's smallest unit. */
export interface Nep17Balance {
  asset: string;
  amount: string;
  decimals: number;
}

/** A Neo VM stack item, as the node answers `invokefunction`. */
export interface StackItem {
  type: string;
  value?: unknown;
}

/** A test invocation's answer: nothing is signed or persisted. */
export interface Invocation {
  state: 'HALT' | 'FAULT';
  gasconsumed: string;
  stack: StackItem[];
  exception: string | null;
}

/** An argument of `invokeRead`, as `invokefunction` takes it: `{type: 'Hash160', value: '0x…'}`. */
export interface ContractArgument {
  type: string;
  value?: unknown;
}

export interface Blockchain {
  /** The chain's height. */
  getBlockCount(): Promise<number>;
  /** `asset`: `NEO`, `GAS` or a token's `0x` script hash. */
  getBalance(address: string, asset: string): Promise<Nep17Balance>;
  invokeRead(scriptHash: string, operation: string, args: ContractArgument[]): Promise<Invocation>;
}

export interface Random {
  /** `n` (at most 65,536) cryptographically random bytes, as hex. */
  bytes(n: number): string;
  /** An integer in [min, max]. */
  int(min: number, max: number): number;
  uuid(): string;
}

/** `fetch`'s options; all optional (docs/functions.md, "Fetch"). */
export interface FetchInit {
  /** `GET` (the default), `HEAD`, `POST`, `PUT`, `PATCH` or `DELETE`; redirects are followed for GET and HEAD. */
  method?: string;
  /** At most 50; `host`, `content-length`, `transfer-encoding` and `connection` are the service's. */
  headers?: Record<string, string>;
  /** Text only: `JSON.stringify` an object. Counted in the 65 Ki characters of a call's arguments. */
  body?: string;
  /** Milliseconds for the whole request, redirects included: 1 to 10,000 (the default). */
  timeout?: number;
}

/** An answer, its body already read (at most 1 MiB) and decoded as UTF-8. */
export interface HttpResponse {
  status: number;
  /** `status` in 200–299. */
  ok: boolean;
  /** Names in lower case; a repeated header's values joined with `, `. */
  headers: Record<string, string>;
  text(): Promise<string>;
  /** The body parsed as JSON (a `SyntaxError` if it is not). */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- as the Fetch standard's: the shape is the server's.
  json(): Promise<any>;
}

export interface Http {
  /**
   * Requests `url` (http or https) if its host is in the function's `allowedHosts`, through the
   * service's egress guard; 10 requests a run. Fails with `HostNotAllowedError`,
   * `RedirectNotAllowedError`, `EgressRefusedError`, `ResponseTooLargeError`, `FetchTimeoutError`,
   * `FetchNetworkError` or `FetchQuotaError`.
   */
  fetch(url: string, init?: FetchInit): Promise<HttpResponse>;
}

export type LogFunction = (...values: unknown[]) => void;

export interface Log {
  debug: LogFunction;
  info: LogFunction;
  warn: LogFunction;
  error: LogFunction;
}

export interface Secrets {
  /** A granted secret by name; rejects for a name not granted to the function. */
  get(name: string): Promise<string>;
  /** Granted secrets are also properties; each read is recorded on the execution. */
  readonly [name: string]: string | ((name: string) => Promise<string>);
}

/** A stored value: JSON data, typed as JSON.parse answers, so that plain JavaScript reads it freely. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- as JSON.parse answers
export type StoredValue = any;

/** A stored value and its version; `{version: 0}` alone for a key the store does not hold. */
export interface StorageEntry {
  value?: StoredValue;
  version: number;
}

/** `ifVersion`: write only if the key is still at this version when the run commits (0: absent). */
export interface StorageWriteOptions {
  ifVersion?: number;
}

export interface StorageListOptions {
  prefix?: string;
  /** 1 to 1,000; 100 by default. */
  limit?: number;
  /** The `cursor` of the page before. */
  cursor?: string;
}

/**
 * The function's key-value store (docs/functions.md, "Storage"): writes wait in the run, which
 * reads them back at once, and are committed with its end only if it completes.
 */
export interface Storage {
  /** The value (JSON), or undefined. */
  get(key: string): Promise<StoredValue>;
  getEntry(key: string): Promise<StorageEntry>;
  /** `value`: JSON data of at most 64 KiB as JSON. */
  set(key: string, value: unknown, options?: StorageWriteOptions): Promise<void>;
  delete(key: string, options?: StorageWriteOptions): Promise<void>;
  /** Keys only, in byte order; `cursor` when more follow. */
  list(options?: StorageListOptions): Promise<{ keys: string[]; cursor?: string }>;
}

export interface Context {
  /** The invoke's `params`; for an automation's run, the action's `parameters` and `trigger`. */
  params: Record<string, unknown>;
  /** The function's `environment`. */
  environment: Record<string, string>;
  secrets: Secrets;
  execution: { id: string; startedAt: string; functionId: string };
  log: Log;
  /**
   * Calls to the host: arguments must be JSON data (plain objects, arrays, strings, numbers,
   * booleans, null), at most 65 Ki characters as JSON (room for a 64 KiB storage value and its key), else the call throws `ServiceArgumentError`;
   * a run makes at most `NEOFLOW_SANDBOX_SERVICE_CALLS` (1,000) of them, then `ServiceQuotaError`.
   */
  services: { blockchain: Blockchain; random: Random; http: Http };
  /** Each call counts as a service call. */
  storage: Storage;
}

/** The function itself, in any of its four forms. */
export type NeoflowFunction = (context: Context) => unknown;

/** A contract call a sending function decides (docs/functions.md, "Functions that send"). */
export interface Call {
  /** One of the action's `allowedContracts`. */
  scriptHash: string;
  operation: string;
  /** As a contract action's: `{type: 'Integer', value: '100'}`; a value may be `{{trigger.<path>}}`. */
  args?: ContractArgument[];
}

/**
 * What a sending function returns: calls to send in one transaction, or a reason to send nothing;
 * Gelato's `canExec` shape is read the same.
 */
export type Decision =
  { calls: Call[] } | { skip: string } | { canExec: true; calls: Call[] } | { canExec: false; message?: string };

/** An integer typed array: what `crypto.getRandomValues` fills. */
type IntegerArray =
  | Int8Array
  | Uint8Array
  | Uint8ClampedArray
  | Int16Array
  | Uint16Array
  | Int32Array
  | Uint32Array
  | BigInt64Array
  | BigUint64Array;

/**
 * The standard globals a function has besides the language (docs/functions.md, "Standard
 * globals"), for an editor whose `lib` is ES only (no `dom`, which declares them too).
 */
declare global {
  /** Calls `callback` after `delay` ms (at most the run's timeout); a run ends without waiting for it. */
  function setTimeout(callback: (...args: never[]) => unknown, delay?: number, ...args: unknown[]): number;
  function clearTimeout(id: number | undefined): void;
  /** Base64 of a string of one-byte characters; `InvalidCharacterError` for any other. */
  function btoa(data: string): string;
  /** The one-byte characters base64 `data` encodes; `InvalidCharacterError` if it is not base64. */
  function atob(data: string): string;
  /** A deep copy (Map, Set, Date, RegExp, typed arrays, errors, cycles); `DataCloneError` for functions. */
  function structuredClone<T>(value: T): T;

  const crypto: {
    /** Fills `array` (at most 65,536 bytes) with cryptographically random values. */
    getRandomValues<T extends IntegerArray>(array: T): T;
    /** A random UUID v4. */
    randomUUID(): string;
  };

  class TextEncoder {
    readonly encoding: 'utf-8';
    encode(input?: string): Uint8Array;
    encodeInto(source: string, destination: Uint8Array): { read: number; written: number };
  }

  class TextDecoder {
    /** UTF-8 only (`RangeError` for another encoding). */
    constructor(label?: string, options?: { fatal?: boolean; ignoreBOM?: boolean });
    readonly encoding: 'utf-8';
    readonly fatal: boolean;
    readonly ignoreBOM: boolean;
    decode(input?: ArrayBuffer | ArrayBufferView, options?: { stream?: boolean }): string;
  }

  class URLSearchParams implements Iterable<[string, string]> {
    constructor(init?: string | Record<string, string> | Iterable<[string, string]>);
    readonly size: number;
    append(name: string, value: string): void;
    delete(name: string, value?: string): void;
    get(name: string): string | null;
    getAll(name: string): string[];
    has(name: string, value?: string): boolean;
    set(name: string, value: string): void;
    sort(): void;
    forEach(callback: (value: string, name: string, parent: URLSearchParams) => void, thisArg?: unknown): void;
    entries(): IterableIterator<[string, string]>;
    keys(): IterableIterator<string>;
    values(): IterableIterator<string>;
    [Symbol.iterator](): IterableIterator<[string, string]>;
    toString(): string;
  }

  class URL {
    /** Throws `TypeError` for a string that is not a URL (relative ones need `base`). */
    constructor(url: string | URL, base?: string | URL);
    static canParse(url: string | URL, base?: string | URL): boolean;
    static parse(url: string | URL, base?: string | URL): URL | null;
    href: string;
    readonly origin: string;
    protocol: string;
    username: string;
    password: string;
    host: string;
    hostname: string;
    port: string;
    pathname: string;
    search: string;
    readonly searchParams: URLSearchParams;
    hash: string;
    toString(): string;
    toJSON(): string;
  }
}

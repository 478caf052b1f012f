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
   * booleans, null), at most 64 Ki characters as JSON, else the call throws `ServiceArgumentError`;
   * a run makes at most `NEOFLOW_SANDBOX_SERVICE_CALLS` (1,000) of them, then `ServiceQuotaError`.
   */
  services: { blockchain: Blockchain; random: Random };
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

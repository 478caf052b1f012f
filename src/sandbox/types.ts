import { type executionStatus } from '../shared/outcomes.ts';
/**
 * Host implementations the sandbox exposes to user code as `context.services.blockchain` and
 * `context.services.http`. Each
 * call gets the run's signal, aborted when the run ends: a call still in flight stops then.
 */
export interface SandboxServices {
  blockchain: {
    getBalance(address: string, asset: string, signal: AbortSignal): Promise<unknown>;
    getBlockCount(signal: AbortSignal): Promise<number>;
    invokeRead(scriptHash: string, operation: string, args: unknown[], signal: AbortSignal): Promise<unknown>;
  };
  /**
   * `context.services.http.fetch(url, init)`, given the arguments as the isolate sent them (JSON
   * data, not yet checked); answers `{status, headers, body}` with the body bounded and decoded.
   */
  http: {
    fetch(url: unknown, init: unknown, signal: AbortSignal): Promise<HttpAnswer>;
  };
}

/** What a function's request answered, as it crosses into the isolate (JSON data only). */
export interface HttpAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * `context.storage`: the function's key-value store as one run sees it (src/functions/storage/).
 * Arguments arrive as the isolate sent them, parsed from bounded JSON text; each method checks
 * its own. An error it throws with a name (ServiceError) reaches the code under that name.
 */
export interface SandboxStorage {
  get(key: unknown): Promise<unknown>;
  getEntry(key: unknown): Promise<unknown>;
  set(key: unknown, value: unknown, options: unknown): Promise<void>;
  delete(key: unknown, options: unknown): Promise<void>;
  list(options: unknown): Promise<unknown>;
}

export interface SandboxRequest {
  /** User code in one of the four entry forms of contract.md. */
  code: string;
  /** The code is TypeScript (runtime `typescript`): it runs stripped of its types. */
  typescript?: boolean;
  params: Record<string, unknown>;
  execution: { id: string; startedAt: string; functionId: string };
  environment: Record<string, string>;
  /** Only the secrets granted to the function, already decrypted. */
  secrets: { name: string; value: string }[];
  services: SandboxServices;
  /** The function's store; without one, every call of `context.storage` fails. */
  storage?: SandboxStorage;
  /** Wall-clock limit of the whole run, synchronous and asynchronous code alike. */
  timeoutMs: number;
  /** The isolate's heap limit (`NEOFLOW_SANDBOX_MEMORY_MB`). */
  memoryLimitMb: number;
  /** Calls to `context.services` the run may make (`NEOFLOW_SANDBOX_SERVICE_CALLS`). */
  maxServiceCalls: number;
  /** Aborting stops the run at once (its execution was cancelled). */
  signal?: AbortSignal;
}

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

export interface LogLine {
  level: LogLevel;
  message: string;
  timestamp: string;
}

/** A failure as the execution record stores it: the stack holds the user's frames only. */
export interface SandboxError {
  name: string;
  message: string;
  stack: string;
}

interface OutcomeCommon {
  logs: LogLine[];
  /** Names of the granted secrets the code read, by key or through `get`. */
  secretsRead: string[];
  durationMs: number;
}

export type SandboxOutcome =
  | ({ status: typeof executionStatus.completed; result: unknown } & OutcomeCommon)
  | ({ status: typeof executionStatus.failed; error: SandboxError } & OutcomeCommon);

import { maxAddressChars } from '../chain/contract-args.ts';
import { random } from './random.ts';
import { timerLimits, waitFor } from './timers.ts';
import { ServiceError } from './service-error.ts';
import { type SandboxServices, type SandboxStorage } from './types.ts';
import { executionErrorName } from '../shared/outcomes.ts';

/**
 * What a host call hands back to the isolate: its value as JSON text, which the isolate parses.
 * Host functions never throw across the boundary: isolated-vm would carry the host error (and its
 * stack) over, so only a message (and a name the service sets) travels.
 */
export type HostReply = { ok: true; json: string | undefined } | { ok: false; message: string; name?: string };

type HostFunction = (...args: unknown[]) => unknown;

/**
 * The largest arguments of one call as the JSON text the isolate makes, measures and sends: the
 * only thing that crosses (bootstrap.js), checked again here before it is parsed. A storage value
 * may take 64 KiB, with room for its key and options beside it.
 */
export const maxHostArgumentChars = 65 * 1024;

// Neo method names are at most 32 bytes (the manifest's limit); a little room for a clear error.
const maxOperationChars = 256;

/** A string argument no longer than `maxChars`, checked before anything parses it. */
function shortText(value: unknown, what: string, maxChars: number): string {
  if (typeof value !== 'string') throw new TypeError(`${what} must be a string.`);
  if (value.length > maxChars) throw new RangeError(`${what} is longer than ${maxChars} characters.`);
  return value;
}

function argumentList(args: unknown): unknown[] {
  if (args === undefined || args === null) return [];
  if (!Array.isArray(args)) throw new TypeError('invokeRead(scriptHash, operation, args) needs an array of arguments.');
  return args;
}

/** What bounds one run's calls to `context.services`. */
interface ServiceCallBounds {
  /** Calls the run may make, `random`, `blockchain`, `http` and `storage` alike; each further one fails at once. */
  maxCalls: number;
  /** Aborted when the run ends: a call still in flight (an RPC request, a fetch) stops then. */
  signal: AbortSignal;
  /** The run's timeout: no timer waits longer. */
  timeoutMs: number;
}

const serviceCall = /^(random|blockchain|http|storage)\./;

const noStorage: SandboxStorage = {
  get: unavailable,
  getEntry: unavailable,
  set: unavailable,
  delete: unavailable,
  list: unavailable,
};

function unavailable(): Promise<never> {
  return Promise.reject(
    new ServiceError(executionErrorName.StorageError, 'context.storage is not available to this run.'),
  );
}

/**
 * Builds the one dispatcher the isolate may call, by name, with arguments as JSON text. Random
 * calls answer synchronously (the isolate calls them with applySync), service calls with a promise.
 */
export function hostDispatcher(
  services: SandboxServices,
  storage: SandboxStorage = noStorage,
  onSecretRead: (name: string) => void,
  { maxCalls, signal, timeoutMs }: ServiceCallBounds,
): (name: unknown, json: unknown) => HostReply | Promise<HostReply> {
  let calls = 0;
  let timers = 0;
  const table: Record<string, HostFunction> = {
    'secrets.read': (name) => onSecretRead(shortText(name, 'the secret name', 256)),
    // The run's last call: it returns after the log lines queued before it (bootstrap.js, run).
    'log.flush': () => undefined,
    'random.bytes': (n) => random.bytes(n),
    'random.int': (min, max) => random.int(min, max),
    'random.uuid': () => random.uuid(),
    'blockchain.getBalance': (address, asset) =>
      services.blockchain.getBalance(
        shortText(address, 'getBalance(address)', maxAddressChars),
        shortText(asset, 'getBalance(address, asset)', maxAddressChars),
        signal,
      ),
    'timers.wait': (ms) => {
      if (++timers > timerLimits.perRun) throw new Error(`A run may set at most ${timerLimits.perRun} timers.`);
      return waitFor(ms, timeoutMs, signal);
    },
    'blockchain.getBlockCount': () => services.blockchain.getBlockCount(signal),
    'blockchain.invokeRead': (scriptHash, operation, args) =>
      services.blockchain.invokeRead(
        shortText(scriptHash, 'invokeRead(scriptHash)', maxAddressChars),
        shortText(operation, 'invokeRead(scriptHash, operation)', maxOperationChars),
        argumentList(args),
        signal,
      ),
    'http.fetch': (url, init) => services.http.fetch(url, init, signal),
    'storage.get': (key) => storage.get(key),
    'storage.getEntry': (key) => storage.getEntry(key),
    'storage.set': (key, value, options) => storage.set(key, value, options),
    'storage.delete': (key, options) => storage.delete(key, options),
    'storage.list': (options) => storage.list(options),
  };
  return (name, json) => {
    const target = typeof name === 'string' && Object.hasOwn(table, name) ? table[name] : undefined;
    if (!target) return failure(new Error(`Unknown service call ${String(name)}.`));
    if (serviceCall.test(name as string) && ++calls > maxCalls) {
      const message = `This run made its ${maxCalls} calls to context.services; ${String(name)} was refused.`;
      return { ok: false, name: executionErrorName.ServiceQuotaError, message };
    }
    if (signal.aborted) return failure(new Error('The run has ended.'));
    try {
      const value = target(...argumentsOf(json));
      return value instanceof Promise ? value.then(success, failure) : success(value);
    } catch (error) {
      return failure(error);
    }
  };
}

/** The arguments the isolate sent as JSON text of an array, bounded before they are parsed. */
function argumentsOf(json: unknown): unknown[] {
  if (typeof json !== 'string' || json.length > maxHostArgumentChars) {
    throw new RangeError(`The arguments exceed ${maxHostArgumentChars} characters as JSON.`);
  }
  const args: unknown = JSON.parse(json);
  if (!Array.isArray(args)) throw new TypeError('The arguments must be a list.');
  return args;
}

// JSON text guarantees the isolate receives plain data and never a host object.
function success(value: unknown): HostReply {
  try {
    return { ok: true, json: JSON.stringify(value) };
  } catch (error) {
    return failure(error);
  }
}

function failure(error: unknown): HostReply {
  if (error instanceof ServiceError) return { ok: false, name: error.name, message: error.message };
  return { ok: false, message: error instanceof Error ? error.message : String(error) };
}

import { random } from './random.ts';
import { type SandboxServices } from './types.ts';

/**
 * What a host call hands back to the isolate. Host functions never throw across the boundary:
 * isolated-vm would carry the host error (and its stack) over, so only a message travels.
 */
export type HostReply = { ok: true; value: unknown } | { ok: false; message: string };

type HostFunction = (...args: unknown[]) => unknown;

/**
 * Builds the one dispatcher the isolate may call, by name, with arguments copied by value. Random
 * calls answer synchronously (the isolate calls them with applySync), service calls with a promise.
 */
export function hostDispatcher(
  services: SandboxServices,
  onSecretRead: (name: string) => void,
): (name: unknown, args: unknown) => HostReply | Promise<HostReply> {
  const table: Record<string, HostFunction> = {
    'secrets.read': (name) => onSecretRead(String(name)),
    'random.bytes': (n) => random.bytes(n),
    'random.int': (min, max) => random.int(min, max),
    'random.uuid': () => random.uuid(),
    'blockchain.getBalance': (address, asset) => services.blockchain.getBalance(String(address), String(asset)),
    'blockchain.getBlockCount': () => services.blockchain.getBlockCount(),
    'blockchain.invokeRead': (scriptHash, operation, args) =>
      services.blockchain.invokeRead(String(scriptHash), String(operation), Array.isArray(args) ? args : []),
  };
  return (name, args) => {
    const target = typeof name === 'string' && Object.hasOwn(table, name) ? table[name] : undefined;
    if (!target || !Array.isArray(args)) return failure(new Error(`Unknown service call ${String(name)}.`));
    try {
      const value = target(...(args as unknown[]));
      return value instanceof Promise ? value.then(success, failure) : success(value);
    } catch (error) {
      return failure(error);
    }
  };
}

function success(value: unknown): HostReply {
  try {
    return { ok: true, value: plainData(value) };
  } catch (error) {
    return failure(error);
  }
}

function failure(error: unknown): HostReply {
  return { ok: false, message: error instanceof Error ? error.message : String(error) };
}

// A JSON round trip guarantees the isolate receives plain data and never a host object.
function plainData(value: unknown): unknown {
  return value === undefined ? undefined : JSON.parse(JSON.stringify(value));
}

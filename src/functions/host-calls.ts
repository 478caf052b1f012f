import { storable } from '../db/storable.ts';
import { jsonHash, type HostCall } from '../receipts/receipt-claims.ts';
import type { SandboxServices } from '../sandbox/types.ts';

/**
 * A run's calls out of its isolate (chain reads and fetches), in the order they were made, for its
 * receipt's hostCallsHash. Each call is kept as its method, what it read and one hash of what was
 * asked and answered: never a fetch's URL, headers or body, which may carry a secret the code read.
 */
export function recordedServices(services: SandboxServices): { services: SandboxServices; calls(): HostCall[] } {
  const calls: HostCall[] = [];
  async function recorded<T>(method: string, target: string, request: unknown, call: () => Promise<T>) {
    // Its place is taken when the call is made: the order is the code's, not the answers'.
    const entry: HostCall = { method, target, resultHash: '' };
    calls.push(entry);
    try {
      const answer = await call();
      entry.resultHash = hashOf({ request, answer });
      return answer;
    } catch (error) {
      entry.resultHash = hashOf({ request, error: error instanceof Error ? error.name : 'Error' });
      throw error;
    }
  }
  const { blockchain, http } = services;
  return {
    services: {
      blockchain: {
        getBalance: (address, asset, signal) =>
          recorded('getBalance', `${address} ${asset}`, { address, asset }, () =>
            blockchain.getBalance(address, asset, signal),
          ),
        getBlockCount: (signal) => recorded('getBlockCount', '', {}, () => blockchain.getBlockCount(signal)),
        invokeRead: (scriptHash, operation, args, signal) =>
          recorded('invokeRead', `${scriptHash}.${operation}`, { scriptHash, operation, args }, () =>
            blockchain.invokeRead(scriptHash, operation, args, signal),
          ),
      },
      http: {
        fetch: (url, init, signal) =>
          recorded(fetchMethod(init), hostOf(url), { url, init }, () => http.fetch(url, init, signal)),
      },
    },
    // A call still in flight when the run ended answered nothing.
    calls: () => calls.map((call) => (call.resultHash ? call : { ...call, resultHash: hashOf({ cancelled: true }) })),
  };
}

const hashOf = (value: unknown) => jsonHash(storable(value ?? null)).toString('hex');

function fetchMethod(init: unknown): string {
  const method = (init as { method?: unknown } | null | undefined)?.method;
  return typeof method === 'string' ? method.toUpperCase().slice(0, 16) : 'GET';
}

const hostOf = (url: unknown) => (typeof url === 'string' ? (URL.parse(url)?.host ?? '') : '');

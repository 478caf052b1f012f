import type { NeoRpc } from '../chain/rpc.ts';
import type { SandboxServices } from '../sandbox/types.ts';
import type { FunctionFetch } from './function-fetch.ts';

/**
 * What `context.services` calls: the Neo network's nodes, and the run's own `fetch` (its
 * allowedHosts, through the egress guard), for a run here or `neoflow fn run`. `neo`: the nodes, or
 * what finds them at the first call (an automation's run: its network), so that a run that reads
 * no chain pays nothing to find them.
 */
export function sandboxServices(neo: NeoRpc | (() => Promise<NeoRpc>), http: FunctionFetch): SandboxServices {
  const nodes = typeof neo === 'function' ? neo : () => Promise.resolve(neo);
  return {
    blockchain: {
      getBalance: async (address, asset, signal) => (await nodes()).getBalance(address, asset, signal),
      getBlockCount: async (signal) => (await nodes()).getBlockCount(signal),
      invokeRead: async (scriptHash, operation, args, signal) =>
        (await nodes()).invokeFunction(scriptHash, operation, args, signal),
    },
    http: { fetch: (url, init, signal) => http.fetch(url, init, signal) },
  };
}

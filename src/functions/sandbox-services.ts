import type { NeoRpc } from '../chain/rpc.ts';
import type { SandboxServices } from '../sandbox/types.ts';
import type { FunctionFetch } from './function-fetch.ts';

/**
 * What `context.services` calls: the configured Neo node, and the run's own `fetch` (its
 * allowedHosts, through the egress guard), for a run here or `neoflow fn run`.
 */
export function sandboxServices(neo: NeoRpc, http: FunctionFetch): SandboxServices {
  return {
    blockchain: {
      getBalance: (address, asset, signal) => neo.getBalance(address, asset, signal),
      getBlockCount: (signal) => neo.getBlockCount(signal),
      invokeRead: (scriptHash, operation, args, signal) => neo.invokeFunction(scriptHash, operation, args, signal),
    },
    http: { fetch: (url, init, signal) => http.fetch(url, init, signal) },
  };
}

import type { NeoRpc } from '../chain/rpc.ts';
import type { SandboxServices } from '../sandbox/types.ts';

/** What `context.services.blockchain` calls: the configured Neo node, for a run here or `neoflow fn run`. */
export function sandboxServices(neo: NeoRpc): SandboxServices {
  return {
    blockchain: {
      getBalance: (address, asset, signal) => neo.getBalance(address, asset, signal),
      getBlockCount: (signal) => neo.getBlockCount(signal),
      invokeRead: (scriptHash, operation, args, signal) => neo.invokeFunction(scriptHash, operation, args, signal),
    },
  };
}

import type { NeoRpc } from '../chain/rpc.ts';
import type { SandboxServices } from '../sandbox/types.ts';

/** What `context.services.blockchain` calls: the configured Neo node, for a run here or `neoflow fn run`. */
export function sandboxServices(neo: NeoRpc): SandboxServices {
  return {
    blockchain: {
      getBalance: (address, asset) => neo.getBalance(address, asset),
      getBlockCount: () => neo.getBlockCount(),
      invokeRead: (scriptHash, operation, args) => neo.invokeFunction(scriptHash, operation, args),
    },
  };
}

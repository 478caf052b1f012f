import { nextFlight } from './next-flight.ts';
import type { NeoRpc } from './rpc.ts';

/**
 * The node's reads that concurrent requests may share (issue 34: creates of many watchers at
 * once): the height, read by one call for the callers that ask while one is in flight and never
 * older than their asking (nextFlight); the network's magic number, which a node's URL keeps while
 * the process runs, read once (a failed read is asked again). A read given its own abort signal
 * is made alone. Every other call goes to `neo` as it is.
 */
export function withSharedReads(neo: NeoRpc): NeoRpc {
  const height = nextFlight(() => neo.getBlockCount());
  let magic: Promise<number> | undefined;
  const networkMagic = () => {
    magic ??= neo.getNetworkMagic().catch((error: unknown) => {
      magic = undefined;
      throw error;
    });
    return magic;
  };
  return {
    ...neo,
    getBlockCount: (signal) => (signal ? neo.getBlockCount(signal) : height()),
    getNetworkMagic: networkMagic,
  };
}

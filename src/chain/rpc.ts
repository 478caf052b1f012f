import { rpc } from '@cityofzion/neon-js';

/** The Neo N3 RPC calls the service makes, typed for its own use. */
export interface NeoRpc {
  readonly url: string;
  /** Number of blocks in the chain: the height of the latest block plus one. */
  getBlockCount(): Promise<number>;
}

export function createNeoRpc(url: string): NeoRpc {
  const client = new rpc.RPCClient(url);
  return {
    url,
    getBlockCount: () => client.getBlockCount(),
  };
}

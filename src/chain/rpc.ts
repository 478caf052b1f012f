import { rpc } from '@cityofzion/neon-js';

/** The Neo N3 RPC calls the service makes, typed for its own use. */
export interface NeoRpc {
  readonly url: string;
  /** Number of blocks in the chain: the height of the latest block plus one. */
  getBlockCount(): Promise<number>;
}

export interface NeoRpcOptions {
  /** Per call; without it a node that accepts the connection but never answers hangs the caller. */
  timeoutMs?: number;
}

export function createNeoRpc(url: string, options: NeoRpcOptions = {}): NeoRpc {
  const client = new rpc.RPCClient(url);
  const config = { timeout: options.timeoutMs ?? 10_000 };
  return {
    url,
    getBlockCount: () => client.execute(rpc.Query.getBlockCount(), config),
  };
}

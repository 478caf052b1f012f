import { rpc } from '@cityofzion/neon-js';

/** What we need of a neon-js query: its method name and its JSON-RPC request body. */
interface Query {
  method: string;
  export(): unknown;
}

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

export class NeoRpcError extends Error {
  constructor(method: string, message: string) {
    super(`Neo RPC ${method} failed: ${message}`);
    this.name = 'NeoRpcError';
  }
}

/**
 * neon-js builds the queries; we send them ourselves so that each call's timeout is an
 * `AbortSignal.timeout`, which (unlike neon-js's own timer) never keeps the process alive.
 */
export function createNeoRpc(url: string, options: NeoRpcOptions = {}): NeoRpc {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const call = <T>(query: Query) => execute<T>(url, query, timeoutMs);
  return {
    url,
    getBlockCount: () => call<number>(rpc.Query.getBlockCount()),
  };
}

async function execute<T>(url: string, query: Query, timeoutMs: number): Promise<T> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(query.export()),
    signal: AbortSignal.timeout(timeoutMs),
  });
  if (!response.ok) throw new NeoRpcError(query.method, `HTTP ${response.status}`);
  const body = (await response.json()) as { result?: T; error?: { message?: string } };
  if (body.error) throw new NeoRpcError(query.method, body.error.message ?? 'unknown error');
  return body.result as T;
}

import { rpc, u, type tx } from '@cityofzion/neon-js';
import { balanceFrom, balanceScript, type Nep17Balance } from './nep17.ts';

/** What we need of a neon-js query: its method name and its JSON-RPC request body. */
interface Query {
  method: string;
  export(): unknown;
}

type Transaction = InstanceType<typeof tx.Transaction>;
type Signer = InstanceType<typeof tx.Signer>;

/** A stack item as the node shows it; the shape of `value` depends on `type`. */
export interface StackItem {
  type: string;
  value?: unknown;
}

/** The outcome of a script the node ran without persisting anything (`invokescript`). */
export interface Invocation {
  state: 'HALT' | 'FAULT';
  /** In GAS fractions (10^-8 GAS): the system fee the script needs. */
  gasconsumed: string;
  exception: string | null;
  stack: StackItem[];
}

/** A transaction as the node knows it: `blockhash` and `vmstate` appear once it is in a block. */
export interface TransactionStatus {
  hash: string;
  blockhash?: string;
  vmstate?: 'HALT' | 'FAULT';
}

/** The Neo N3 RPC calls the service makes, typed for its own use. */
export interface NeoRpc {
  readonly url: string;
  /** Number of blocks in the chain: the height of the latest block plus one. */
  getBlockCount(): Promise<number>;
  /** The network's magic number, which every transaction signature covers. */
  getNetworkMagic(): Promise<number>;
  /** Runs `script` (hex) as `signers` would, without signing or persisting anything. */
  invokeScript(script: string, signers?: Signer[]): Promise<Invocation>;
  /** In GAS fractions: the fee for the size and the witnesses of `transaction`. */
  calculateNetworkFee(transaction: Transaction): Promise<string>;
  /** Relays a signed transaction; answers its hash (`0x…`). */
  sendRawTransaction(transaction: Transaction): Promise<string>;
  /** Fails with the node's "unknown transaction" once it is neither in the pool nor in a block. */
  getTransaction(hash: string): Promise<TransactionStatus>;
  /** What `address` holds of `asset`: `NEO`, `GAS` or a NEP-17 contract's `0x` script hash. */
  getBalance(address: string, asset: string): Promise<Nep17Balance>;
  /** Test-invokes a contract method (`invokefunction`): reads state, signs and persists nothing. */
  invokeFunction(scriptHash: string, operation: string, args: unknown[]): Promise<Invocation>;
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
  // neon-js passes a plain string script through as is, while the node expects base64.
  const invokeScript = (script: string, signers: Signer[] = []) =>
    call<Invocation>(rpc.Query.invokeScript(u.HexString.fromHex(script), signers));
  return {
    url,
    getBlockCount: () => call<number>(rpc.Query.getBlockCount()),
    getNetworkMagic: async () =>
      (await call<{ protocol: { network: number } }>(rpc.Query.getVersion())).protocol.network,
    invokeScript,
    calculateNetworkFee: async (transaction) =>
      (await call<{ networkfee: string }>(rpc.Query.calculateNetworkFee(transaction))).networkfee,
    sendRawTransaction: async (transaction) =>
      (await call<{ hash: string }>(rpc.Query.sendRawTransaction(transaction))).hash,
    getTransaction: (hash) => call<TransactionStatus>(rpc.Query.getRawTransaction(hash, true)),
    getBalance: async (address, asset) => balanceFrom(asset, await invokeScript(balanceScript(address, asset))),
    invokeFunction: (scriptHash, operation, args) =>
      call<Invocation>(new rpc.Query({ method: 'invokefunction', params: [scriptHash, operation, args] })),
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

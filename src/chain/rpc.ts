import { rpc, u, type tx } from '@cityofzion/neon-js';
import { balanceFrom, balanceScript, type Nep17Balance } from './nep17.ts';
import type { Invocation, StackItem } from './stack-item.ts';

/** What we need of a neon-js query: its method name and its JSON-RPC request body. */
interface Query {
  method: string;
  export(): unknown;
}

type Transaction = InstanceType<typeof tx.Transaction>;
type Signer = InstanceType<typeof tx.Signer>;

/** A notification with the hash of the block or transaction (`container`) whose execution emitted it. */
export interface ContainedNotification {
  container: string;
  contract: string;
  eventname: string;
  state: StackItem;
}

/** A block's notifications by trigger: before its transactions, from them (in order), after them. */
export interface BlockNotificationLists {
  onpersist: ContainedNotification[];
  application: ContainedNotification[];
  postpersist: ContainedNotification[];
}

/** One execution of a transaction or block in `getapplicationlog`; a transaction has exactly one. */
interface LogExecution {
  trigger: string;
  vmstate: 'HALT' | 'FAULT';
  /** In GAS fractions. */
  gasconsumed: string;
  exception: string | null;
  stack: StackItem[];
  /** What the execution emitted, in order; none when it faulted (they were undone). */
  notifications?: { contract: string; eventname: string; state: StackItem }[];
}

interface ApplicationLog {
  executions: LogExecution[];
}

/** What a contract declares: here only what decoding its notifications needs. */
export interface ContractState {
  hash: string;
  /** How many times the contract was updated since it was deployed. */
  updatecounter: number;
  manifest: {
    name: string;
    abi: { events: { name: string; parameters: { name: string; type: string }[] }[] };
  };
}

/** A transaction as the node knows it: `blockhash` and `vmstate` appear once it is in a block. */
export interface TransactionStatus {
  hash: string;
  /** In GAS fractions: the fees it pays, all burned once it is in a block. */
  sysfee: string;
  netfee: string;
  blockhash?: string;
  vmstate?: 'HALT' | 'FAULT';
}

/** A block's transactions, as `getblock` (verbose) shows them: only what transaction triggers read. */
interface BlockWithTransactions {
  hash: string;
  index: number;
  tx: { hash: string; /** An address. */ sender: string; /** Base64. */ script: string }[];
}

/** The Neo N3 RPC calls the service makes, typed for its own use. */
export interface NeoRpc {
  readonly url: string;
  /** Number of blocks in the chain: the height of the latest block plus one. */
  getBlockCount(signal?: AbortSignal): Promise<number>;
  /** The network's magic number, which every transaction signature covers. */
  getNetworkMagic(): Promise<number>;
  /** Runs `script` (hex) as `signers` would, without signing or persisting anything. */
  invokeScript(script: string, signers?: Signer[], signal?: AbortSignal): Promise<Invocation>;
  /** In GAS fractions: the fee for the size and the witnesses of `transaction`. */
  calculateNetworkFee(transaction: Transaction): Promise<string>;
  /** Relays a signed transaction, given as such or serialized (hex); answers its hash (`0x…`). */
  sendRawTransaction(transaction: Transaction | string): Promise<string>;
  /** Fails with the node's "unknown transaction" once it is neither in the pool nor in a block. */
  getTransaction(hash: string): Promise<TransactionStatus>;
  /** What `address` holds of `asset`: `NEO`, `GAS` or a NEP-17 contract's `0x` script hash. */
  getBalance(address: string, asset: string, signal?: AbortSignal): Promise<Nep17Balance>;
  /** Test-invokes a contract method (`invokefunction`): reads state, signs and persists nothing. */
  invokeFunction(scriptHash: string, operation: string, args: unknown[], signal?: AbortSignal): Promise<Invocation>;
  /** invokeFunction on the chain's state as of the block at `index` (neo-go's `invokefunctionhistoric`). */
  invokeFunctionAt(index: number, scriptHash: string, operation: string, args: unknown[]): Promise<Invocation>;
  /** The hash (`0x…`) of the block at `index`; fails with code -109 beyond the chain's height. */
  getBlockHash(index: number): Promise<string>;
  /**
   * Every notification a block's executions emitted (neo-go's `getblocknotifications`), in one call
   * however many transactions it holds. Those of transactions that faulted are left out: they were undone.
   */
  getBlockNotifications(blockHash: string): Promise<BlockNotificationLists>;
  /** Fails with code -105 while the transaction or block is not persisted. */
  getApplicationLog(hash: string): Promise<ApplicationLog>;
  /** The block `hash` with its transactions, in one call. */
  getBlock(hash: string): Promise<BlockWithTransactions>;
  /** Fails with code -102 for a contract that is not deployed. */
  getContractState(scriptHash: string): Promise<ContractState>;
}

interface NeoRpcOptions {
  /** Per call; without it a node that accepts the connection but never answers hangs the caller. */
  timeoutMs?: number;
  /** Told the JSON-RPC method of each call as it starts, to count calls. */
  onCall?: (method: string) => void;
}

export class NeoRpcError extends Error {
  /** The node's JSON-RPC error code (see neo-go's pkg/neorpc/errors.go); undefined for HTTP failures. */
  readonly code: number | undefined;
  /** The HTTP status when the node answered no JSON-RPC (a proxy's 502, a 404): the node's failure. */
  readonly status: number | undefined;

  constructor(method: string, message: string, code?: number, status?: number) {
    super(`Neo RPC ${method} failed: ${message}`);
    this.name = 'NeoRpcError';
    this.code = code;
    this.status = status;
  }
}

/** The node's JSON-RPC error code if `error` is its answer, else undefined. */
export const rpcErrorCode = (error: unknown) => (error instanceof NeoRpcError ? error.code : undefined);

/**
 * neon-js builds the queries; we send them ourselves so that each call's timeout is an
 * `AbortSignal.timeout`, which (unlike neon-js's own timer) never keeps the process alive. A
 * caller's `signal` (a function run that ended) stops a call in flight as well.
 */
export function createNeoRpc(url: string, options: NeoRpcOptions = {}): NeoRpc {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const call = <T>(query: Query, signal?: AbortSignal) => {
    options.onCall?.(query.method);
    const timeout = AbortSignal.timeout(timeoutMs);
    return execute<T>(url, query, signal ? AbortSignal.any([timeout, signal]) : timeout);
  };
  // neon-js passes a plain string script through as is, while the node expects base64.
  const invokeScript = (script: string, signers: Signer[] = [], signal?: AbortSignal) =>
    call<Invocation>(rpc.Query.invokeScript(u.HexString.fromHex(script), signers), signal);
  return {
    url,
    getBlockCount: (signal) => call<number>(rpc.Query.getBlockCount(), signal),
    getNetworkMagic: async () =>
      (await call<{ protocol: { network: number } }>(rpc.Query.getVersion())).protocol.network,
    invokeScript,
    calculateNetworkFee: async (transaction) =>
      (await call<{ networkfee: string }>(rpc.Query.calculateNetworkFee(transaction))).networkfee,
    sendRawTransaction: async (transaction) => {
      // neon-js passes a plain string through as is, while the node expects base64.
      const raw = typeof transaction === 'string' ? u.HexString.fromHex(transaction) : transaction;
      return (await call<{ hash: string }>(rpc.Query.sendRawTransaction(raw))).hash;
    },
    getTransaction: (hash) => call<TransactionStatus>(rpc.Query.getRawTransaction(hash, true)),
    getBalance: async (address, asset, signal) =>
      balanceFrom(asset, await invokeScript(balanceScript(address, asset), [], signal)),
    invokeFunction: (scriptHash, operation, args, signal) =>
      call<Invocation>(new rpc.Query({ method: 'invokefunction', params: [scriptHash, operation, args] }), signal),
    invokeFunctionAt: (index, scriptHash, operation, args) =>
      call<Invocation>(
        new rpc.Query({ method: 'invokefunctionhistoric', params: [index, scriptHash, operation, args] }),
      ),
    getBlockHash: (index) => call<string>(rpc.Query.getBlockHash(index)),
    getBlockNotifications: async (blockHash) => {
      const lists = await call<Partial<BlockNotificationLists>>(
        new rpc.Query({ method: 'getblocknotifications', params: [blockHash] }),
      );
      // neo-go omits an empty list.
      return {
        onpersist: lists.onpersist ?? [],
        application: lists.application ?? [],
        postpersist: lists.postpersist ?? [],
      };
    },
    getApplicationLog: (hash) => call<ApplicationLog>(rpc.Query.getApplicationLog(hash)),
    getBlock: (hash) => call<BlockWithTransactions>(rpc.Query.getBlock(hash, true)),
    getContractState: (scriptHash) => call<ContractState>(rpc.Query.getContractState(scriptHash)),
  };
}

async function execute<T>(url: string, query: Query, signal: AbortSignal): Promise<T> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(query.export()),
    signal,
  });
  if (!response.ok) throw new NeoRpcError(query.method, `HTTP ${response.status}`, undefined, response.status);
  const body = (await response.json()) as { result?: T; error?: { code?: number; message?: string; data?: string } };
  if (body.error) {
    const { code, message = 'unknown error', data } = body.error;
    throw new NeoRpcError(query.method, data ? `${message}: ${data}` : message, code);
  }
  return body.result as T;
}

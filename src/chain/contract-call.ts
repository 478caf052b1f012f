import { setTimeout as sleep } from 'node:timers/promises';
import { rpcErrorCode, type NeoRpc, type TransactionStatus } from './rpc.ts';
import { feeOf, sign, testAndPrice, type Fault, type Sender } from './transaction.ts';

/** A signed transaction, kept so that every relay of one call sends the same bytes. */
export interface PreparedCall {
  /** `0x…`: what the node knows it by. */
  hash: string;
  /** Hex of the signed, serialized transaction. */
  rawTransaction: string;
  /** The last block that may include it: once that block exists without it, it never will be. */
  validUntilBlock: number;
}

type CallResult =
  | {
      outcome: 'included';
      blockHash: string;
      vmState: 'HALT' | 'FAULT';
      /** In GAS fractions: what the VM used, and the fees the transaction burned for it. */
      gasConsumed: string;
      systemFee: string;
      networkFee: string;
      exception: string | null;
    }
  | { outcome: 'expired' };

interface RelayOptions {
  /** Between looks at the chain; default 1 s. */
  pollMs?: number;
  /** Called on each look, so that an activity can heartbeat. */
  onWait?: () => void;
  /**
   * With it, an error in reaching or reading the node (anything but the node refusing the
   * transaction) is told here and the relay goes on, its looks further apart (up to 10 s) while
   * the trouble lasts; told null when the node answers again. Without it, such an error fails the
   * relay.
   */
  onTrouble?: (error: unknown) => Promise<void> | void;
  /**
   * A node accepted the transaction before (an earlier relay of it): the network may hold it, so a
   * node's refusal of a re-send proves nothing, and with onTrouble it is told there as a trouble
   * while the relay goes on until the transaction is in a block or expired.
   */
  relayedBefore?: boolean;
  /** Called once when a node first holds the transaction (it accepted it, or has it in its pool). */
  onRelayed?: () => Promise<void> | void;
}

/** Where a transaction stands, read without sending it. */
type Standing =
  | { state: 'included'; blockHash: string }
  | { state: 'expired'; height: number }
  /** `inPool`: the node holds it, waiting for a block. */
  | { state: 'pending'; height: number; inPool: boolean };

/** The longest wait between looks while the node cannot be reached or read. */
const troubledPollMs = 10_000;

// neo-go's codes (pkg/neorpc/errors.go) for a transaction the node knows or cannot know.
const unknownTransaction = -103;
/** Relay answers that leave the transaction sound: it is known already, or the next look settles it. */
const alreadyInPool = -503;
const harmlessRelayErrors = new Set([
  -501, // already on chain
  -502, // memory pool full: relayed again on a later look
  alreadyInPool,
  -510, // expired: the next look answers `expired`
]);

/**
 * The node refused the transaction itself (its fees unpaid, its signature, script, size or
 * attributes invalid): the same bytes will never be accepted, so relaying again is in vain.
 */
export class TransactionRejectedError extends Error {
  readonly code: number;

  constructor(code: number, message: string) {
    super(message);
    this.name = 'TransactionRejectedError';
    this.code = code;
  }
}

/** neo-go's verification errors (-500 to -512) that are not in harmlessRelayErrors. */
const isRejection = (code: number) => code <= -500 && code >= -599 && !harmlessRelayErrors.has(code);

/** A call whose test run HALTed: its transaction's hash and price are known, and nothing is signed yet. */
export interface PricedCall {
  /** `0x…`: the hash of the transaction `sign` answers (a signature is not part of it). */
  hash: string;
  /** Its system fee plus its network fee, in GAS fractions: what the sender pays once it is in a block. */
  fee: bigint;
  /** The two parts of `fee`: what the VM runs, and what the witness and the size cost. */
  systemFee: bigint;
  networkFee: bigint;
  /** Signs through the sender's key, checked against its public key (transaction.ts `sign`). */
  sign(): Promise<PreparedCall>;
}

/**
 * Test-runs `script` (hex) as `sender` would and, unless it faults, answers what its transaction
 * costs, to be signed after that cost is accepted; nothing is sent.
 */
export async function priceContractCall(neo: NeoRpc, script: string, sender: Sender): Promise<PricedCall | Fault> {
  const priced = await testAndPrice(neo, script, sender);
  if ('fault' in priced) return priced;
  return {
    hash: `0x${priced.transaction.hash()}`,
    fee: feeOf(priced.transaction),
    systemFee: BigInt(priced.transaction.systemFee.toString()),
    networkFee: BigInt(priced.transaction.networkFee.toString()),
    sign: async () => {
      const signed = await sign(priced, sender);
      return {
        hash: `0x${signed.hash()}`,
        rawTransaction: signed.serialize(true),
        validUntilBlock: signed.validUntilBlock,
      };
    },
  };
}

/**
 * Test-runs `script` (hex) as `sender` would and, unless it faults, signs the transaction that runs
 * it; nothing is sent. Store the answer before relaying it: it is the one transaction of this call.
 */
export async function prepareContractCall(neo: NeoRpc, script: string, sender: Sender): Promise<PreparedCall | Fault> {
  const priced = await priceContractCall(neo, script, sender);
  return 'fault' in priced ? priced : priced.sign();
}

/**
 * Relays `call` until it is in a block, or can no longer be: safe to repeat, after a crash too,
 * since it only ever sends the prepared bytes. A transaction the node refuses (insufficient funds,
 * for one) before any node accepted it fails here at once with TransactionRejectedError and the
 * node's message. Once one accepted it (here, or before: `relayedBefore`), a refused re-send is a
 * trouble like an outage: the network may still include it, so only its block or its expiry ends
 * the relay.
 */
export async function relayUntilFinal(
  neo: NeoRpc,
  call: PreparedCall,
  options: RelayOptions = {},
): Promise<CallResult> {
  const pollMs = options.pollMs ?? 1000;
  let relayed = options.relayedBefore ?? false;
  let toldRelayed = relayed;
  const held = async () => {
    relayed = true;
    if (toldRelayed) return;
    await options.onRelayed?.();
    toldRelayed = true;
  };
  let troubles = 0;
  for (;;) {
    options.onWait?.();
    try {
      const result = await look(neo, call, held);
      if (troubles > 0) await options.onTrouble?.(null);
      troubles = 0;
      if (result) return result;
    } catch (error) {
      if (!options.onTrouble || (error instanceof TransactionRejectedError && !relayed)) throw error;
      troubles++;
      await options.onTrouble(error);
    }
    await sleep(troubles > 0 ? Math.min(pollMs * 2 ** troubles, troubledPollMs) : pollMs);
  }
}

/**
 * One look at the chain: the outcome once there is one, else the transaction is sent if the node
 * lacks it; `held` is told whenever the node holds it (in its pool, or accepted now).
 */
async function look(neo: NeoRpc, call: PreparedCall, held: () => Promise<void>): Promise<CallResult | null> {
  const standing = await standingOf(neo, call.hash, call.validUntilBlock);
  if (standing.state === 'included') return included(neo, call.hash, standing.blockHash);
  if (standing.state === 'expired') return { outcome: 'expired' };
  // Neither in a block nor in the pool (never sent, or dropped by a restarted node): send it.
  if (standing.inPool || (await relay(neo, call.rawTransaction))) await held();
  return null;
}

/**
 * Where the transaction `hash` stands: in a block, expired (a block past `validUntilBlock` exists
 * and it is in none: no block can include it any more), or pending (it may still be included).
 */
export async function standingOf(neo: NeoRpc, hash: string, validUntilBlock: number): Promise<Standing> {
  // The height first: a status read after it covers every block up to it.
  const height = (await neo.getBlockCount()) - 1;
  const status = await statusOf(neo, hash);
  if (status?.blockhash) return { state: 'included', blockHash: status.blockhash };
  if (height >= validUntilBlock) return { state: 'expired', height };
  return { state: 'pending', height, inPool: status !== null };
}

/**
 * Test-runs `script` (hex), pays its fees from `sender`, signs and relays it, then waits until it
 * is in a block; returns its hash. A script that faults, in the test run or on chain, fails here.
 */
export async function sendAndConfirm(neo: NeoRpc, script: string, sender: Sender): Promise<string> {
  const call = await prepareContractCall(neo, script, sender);
  if ('fault' in call) throw new Error(`the transaction would fail: ${call.fault}`);
  const result = await relayUntilFinal(neo, call, { pollMs: 200 });
  if (result.outcome === 'expired') throw new Error(`transaction ${call.hash} expired before a block included it`);
  if (result.vmState !== 'HALT') throw new Error(`transaction ${call.hash} failed on chain (${result.vmState})`);
  return call.hash;
}

async function statusOf(neo: NeoRpc, hash: string): Promise<TransactionStatus | null> {
  try {
    return await neo.getTransaction(hash);
  } catch (error) {
    if (rpcErrorCode(error) === unknownTransaction) return null;
    throw error;
  }
}

/** Sends the transaction; answers whether the node holds it now (accepted, or known already). */
async function relay(neo: NeoRpc, rawTransaction: string): Promise<boolean> {
  try {
    await neo.sendRawTransaction(rawTransaction);
    return true;
  } catch (error) {
    const code = rpcErrorCode(error);
    if (code !== undefined && isRejection(code)) {
      throw new TransactionRejectedError(code, error instanceof Error ? error.message : String(error));
    }
    if (code === undefined || !harmlessRelayErrors.has(code)) throw error;
    return code === alreadyInPool;
  }
}

async function included(neo: NeoRpc, hash: string, blockHash: string): Promise<CallResult> {
  // The fees as the chain has them: those the transaction in the block carries.
  const [status, log] = await Promise.all([neo.getTransaction(hash), neo.getApplicationLog(hash)]);
  const [execution] = log.executions;
  if (!execution) throw new Error(`transaction ${hash} is in block ${blockHash} but has no execution`);
  return {
    outcome: 'included',
    blockHash,
    vmState: execution.vmstate,
    gasConsumed: execution.gasconsumed,
    systemFee: status.sysfee,
    networkFee: status.netfee,
    exception: execution.exception,
  };
}

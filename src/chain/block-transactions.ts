import { sc, u, wallet } from '@cityofzion/neon-js';
import type { NeoRpc } from './rpc.ts';

/** A contract method a transaction's script calls (`System.Contract.Call`). */
interface ScriptCall {
  /** `0x` and lower-case. */
  scriptHash: string;
  operation: string;
}

/** A transaction of a persisted block, as transaction triggers match it. */
export interface BlockTransaction {
  blockIndex: number;
  blockHash: string;
  /** `0x` and lower-case. */
  txHash: string;
  /** The paying signer's script hash, `0x` and lower-case. */
  sender: string;
  /** The calls its script makes directly, in order, each pair once. */
  calls: ScriptCall[];
  /** Null until its application log was read (readOutcomes). */
  vmState: 'HALT' | 'FAULT' | null;
  /** What the VM threw, when it FAULTed; at most `maxExceptionChars`. */
  exception: string | null;
}

/** `System.Contract.Call`'s interop hash, as a SYSCALL operand (little-endian hex). */
const contractCall = '627d5b52';
const maxExceptionChars = 1024;

/**
 * The transactions of the block `blockHash` (index `blockIndex`) in one `getblock` call, their
 * outcome not read yet: what a transaction did is read only for those that may match a trigger.
 */
export async function readBlockTransactions(
  neo: NeoRpc,
  blockIndex: number,
  blockHash: string,
): Promise<BlockTransaction[]> {
  const block = await neo.getBlock(blockHash);
  return block.tx.map((transaction) => ({
    blockIndex,
    blockHash,
    txHash: transaction.hash.toLowerCase(),
    sender: `0x${wallet.getScriptHashFromAddress(transaction.sender)}`,
    calls: scriptCalls(Buffer.from(transaction.script, 'base64').toString('hex')),
    vmState: null,
    exception: null,
  }));
}

/** `transactions` with their VM state and exception, from one `getapplicationlog` each. */
export async function readOutcomes(neo: NeoRpc, transactions: BlockTransaction[]): Promise<BlockTransaction[]> {
  const read: BlockTransaction[] = [];
  for (const transaction of transactions) {
    const [execution] = (await neo.getApplicationLog(transaction.txHash)).executions;
    const exception = execution?.exception ?? null;
    read.push({
      ...transaction,
      vmState: execution?.vmstate ?? 'FAULT',
      exception: exception === null ? null : exception.slice(0, maxExceptionChars).toWellFormed(),
    });
  }
  return read;
}

/**
 * The contract calls a script makes itself: `PUSHDATA operation`, `PUSHDATA <20-byte hash>`,
 * `SYSCALL System.Contract.Call`, as every SDK emits them. A call whose target is computed at run
 * time is not seen. A script that does not parse has none.
 */
export function scriptCalls(scriptHex: string): ScriptCall[] {
  let tokens: InstanceType<typeof sc.OpToken>[];
  try {
    tokens = sc.OpToken.fromScript(scriptHex);
  } catch {
    return [];
  }
  const calls = new Map<string, ScriptCall>();
  for (const [index, token] of tokens.entries()) {
    if (token.code !== sc.OpCode.SYSCALL || token.params !== contractCall || index < 2) continue;
    const hash = pushedBytes(tokens[index - 1]!);
    const operation = pushedBytes(tokens[index - 2]!);
    if (hash?.length !== 40 || operation === null) continue;
    const call = { scriptHash: `0x${u.reverseHex(hash)}`, operation: Buffer.from(operation, 'hex').toString('utf8') };
    calls.set(`${call.scriptHash}:${call.operation}`, call);
  }
  return [...calls.values()];
}

const pushData = new Set([sc.OpCode.PUSHDATA1, sc.OpCode.PUSHDATA2, sc.OpCode.PUSHDATA4]);

/** The bytes (hex) a PUSHDATA token pushes (neon-js leaves out their length). */
function pushedBytes(token: InstanceType<typeof sc.OpToken>): string | null {
  return pushData.has(token.code) && token.params !== undefined ? token.params : null;
}

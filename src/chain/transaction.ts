import { setTimeout as sleep } from 'node:timers/promises';
import { sc, tx, u, wallet } from '@cityofzion/neon-js';
import type { NeoRpc } from './rpc.ts';

type Transaction = InstanceType<typeof tx.Transaction>;

/**
 * Who pays for and signs a transaction: an account whose verification script one signature of
 * `privateKey` satisfies (a single-key account, or a 1-of-n multisig account).
 */
export interface Sender {
  privateKey: string;
  /** Hex. */
  verificationScript: string;
}

export interface SendOptions {
  /** How long to wait for the block that includes it; default 60 s. */
  timeoutMs?: number;
}

/** Blocks until the transaction expires: long enough for a busy pool, short enough to give up. */
const VALID_FOR_BLOCKS = 100;
const POLL_MS = 200;

/** The test run faulted: what the VM threw, and the GAS it had used by then. */
export interface Fault {
  fault: string;
  gasConsumed: string;
}

/**
 * Test-runs `script` (hex), pays its fees from `sender`, signs and relays it, then waits until it
 * is in a block; returns its hash. A script that faults, in the test run or on chain, fails here.
 */
export async function sendAndConfirm(neo: NeoRpc, script: string, sender: Sender, options: SendOptions = {}) {
  const signed = await testAndSign(neo, script, sender);
  if ('fault' in signed) throw new Error(`the transaction would fail: ${signed.fault}`);
  const hash = await neo.sendRawTransaction(signed);
  await untilInBlock(neo, hash, options.timeoutMs ?? 60_000);
  return hash;
}

/**
 * Test-runs `script` (hex) as `sender` would; unless it faults, answers the transaction that runs
 * it, its system fee the GAS the test run used, signed by `sender` and valid for the next blocks.
 */
export async function testAndSign(neo: NeoRpc, script: string, sender: Sender): Promise<Transaction | Fault> {
  const account = wallet.getScriptHashFromVerificationScript(sender.verificationScript);
  const signers = [new tx.Signer({ account, scopes: tx.WitnessScope.CalledByEntry })];
  const [invocation, height, magic] = await Promise.all([
    neo.invokeScript(script, signers),
    neo.getBlockCount(),
    neo.getNetworkMagic(),
  ]);
  if (invocation.state !== 'HALT') {
    return { fault: invocation.exception ?? invocation.state, gasConsumed: invocation.gasconsumed };
  }
  const transaction = new tx.Transaction({
    signers,
    script,
    systemFee: invocation.gasconsumed,
    validUntilBlock: height + VALID_FOR_BLOCKS,
    // The node prices a witness by its verification script; the signature is added last.
    witnesses: [{ invocationScript: '', verificationScript: sender.verificationScript }],
  });
  transaction.networkFee = u.BigInteger.fromNumber(await neo.calculateNetworkFee(transaction));
  const signature = wallet.sign(transaction.getMessageForSigning(magic), sender.privateKey);
  transaction.witnesses = [
    new tx.Witness({
      invocationScript: new sc.ScriptBuilder().emitHexString(signature).build(),
      verificationScript: sender.verificationScript,
    }),
  ];
  return transaction;
}

async function untilInBlock(neo: NeoRpc, hash: string, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const status = await neo.getTransaction(hash);
    if (status.blockhash) {
      if (status.vmstate !== 'HALT') throw new Error(`transaction ${hash} failed on chain (${status.vmstate})`);
      return;
    }
    if (Date.now() > deadline) throw new Error(`transaction ${hash} was not in a block after ${timeoutMs / 1000} s`);
    await sleep(POLL_MS);
  }
}

import { createHash } from 'node:crypto';
import { sc, tx, u, wallet } from '@cityofzion/neon-js';
import type { SigningKey } from '../signers/signing-key.ts';
import { signatureVerifies } from '../signers/signature-check.ts';
import { runErrorName } from '../shared/outcomes.ts';
import type { NeoRpc } from './rpc.ts';

type Transaction = InstanceType<typeof tx.Transaction>;

/**
 * Who pays for and signs a transaction: an account whose verification script one signature of
 * `key` satisfies (a single-key account, or a 1-of-n multisig account). Where the key lives is
 * the port's business (src/signers): nothing here knows.
 */
export interface Sender {
  key: SigningKey;
  /** Hex. */
  verificationScript: string;
  /**
   * The public key (compressed hex) a signature must verify against before the transaction may
   * leave: the one the signer's record holds, so a key that signs as another is caught here.
   */
  publicKey: string;
}

/** The single-key account of `publicKey` (by default the key's own), signed for by `key`. */
export const keySender = (key: SigningKey, publicKey = key.publicKey): Sender => ({
  key,
  verificationScript: wallet.getVerificationScriptFromPublicKey(publicKey),
  publicKey,
});

/**
 * The key's signature does not verify against the public key the signer's record holds: sent, it
 * would be refused, or sign for someone else. Nothing is sent, and retrying signs no better.
 */
export class SignerMismatchError extends Error {
  override readonly name = runErrorName.SignerMismatch;
}

/** Blocks until the transaction expires: long enough for a busy pool, short enough to give up. */
const validForBlocks = 100;

const minimumMargin = 1_000_000n;

/**
 * The system fee over the GAS the test run used: 10%, and at least 0.01 GAS (the price of 10 more
 * bytes of storage at the default storage price). What the script does can cost more in its block
 * than in the test run (a value it writes has grown since, a loop turns once more); without the
 * margin any such change faults the call. Neo N3 burns the whole system fee, margin included.
 */
export const systemFeeFor = (gasConsumed: string): bigint => {
  const used = BigInt(gasConsumed);
  const margin = used / 10n;
  return used + (margin > minimumMargin ? margin : minimumMargin);
};
/**
 * The signers of a transaction paid and signed by `account` (a script hash, hex without 0x): its
 * witness covers the calls the script itself makes, the scope wallets sign with by default.
 */
export const signedBy = (account: string) => [new tx.Signer({ account, scopes: tx.WitnessScope.CalledByEntry })];

/** The test run faulted: what the VM threw, and the GAS it had used by then. */
export interface Fault {
  fault: string;
  gasConsumed: string;
}

/** A transaction whose test run HALTed, its fees set and not yet signed: what it costs is known. */
interface Priced {
  transaction: Transaction;
  /** The network's magic number, which the signature covers. */
  magic: number;
}

/**
 * Test-runs `script` (hex) as `sender` would; unless it faults, answers the transaction that runs
 * it, unsigned: its system fee the GAS the test run used plus a margin (systemFeeFor), its network
 * fee the node's price of `sender`'s witness, valid for the next blocks. Its hash is final already
 * (a witness is not part of it).
 */
export async function testAndPrice(neo: NeoRpc, script: string, sender: Sender): Promise<Priced | Fault> {
  const signers = signedBy(wallet.getScriptHashFromVerificationScript(sender.verificationScript));
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
    systemFee: systemFeeFor(invocation.gasconsumed).toString(),
    validUntilBlock: height + validForBlocks,
    // The node prices a witness by its verification script; the signature is added last.
    witnesses: [{ invocationScript: '', verificationScript: sender.verificationScript }],
  });
  transaction.networkFee = u.BigInteger.fromNumber(await neo.calculateNetworkFee(transaction));
  return { transaction, magic };
}

/** What the sender pays for `transaction` once it is in a block, in GAS fractions: both fees, in full. */
export const feeOf = (transaction: Transaction): bigint =>
  BigInt(transaction.systemFee.toString()) + BigInt(transaction.networkFee.toString());

/**
 * Signs a priced transaction as `sender`: the key signs the digest Neo's witness covers,
 * SHA-256(network magic ‖ transaction hash), and the signature is checked against the sender's
 * public key before it is attached (SignerMismatchError otherwise). The key's own errors
 * (SignerUnavailableError, SignerKeyRefusedError) pass through: nothing is signed then.
 */
export async function sign({ transaction, magic }: Priced, sender: Sender): Promise<Transaction> {
  const digest = createHash('sha256')
    .update(Buffer.from(transaction.getMessageForSigning(magic), 'hex'))
    .digest();
  const signature = await sender.key.signDigest(digest);
  if (!signatureVerifies(digest, signature, sender.publicKey)) {
    throw new SignerMismatchError("The signer's key signed a signature that its recorded public key does not verify.");
  }
  transaction.witnesses = [
    new tx.Witness({
      invocationScript: new sc.ScriptBuilder().emitHexString(Buffer.from(signature).toString('hex')).build(),
      verificationScript: sender.verificationScript,
    }),
  ];
  return transaction;
}

/** testAndPrice, then sign: the transaction that runs `script`, signed by `sender`, unless it faults. */
export async function testAndSign(neo: NeoRpc, script: string, sender: Sender): Promise<Transaction | Fault> {
  const priced = await testAndPrice(neo, script, sender);
  return 'fault' in priced ? priced : sign(priced, sender);
}

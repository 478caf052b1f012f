import type { EntityManager } from '@mikro-orm/postgresql';
import { wallet } from '@cityofzion/neon-js';
import { keySender, SignerMismatchError, type Sender } from '../../chain/transaction.ts';
import { MalformedKeyMaterialError } from '../../signers/ecdsa.ts';
import { openSigningKey, type OpenKeyDeps } from '../../signers/open-signing-key.ts';
import type { Signer } from '../../signers/signer.entity.ts';
import { storePublicKey } from '../../signers/signer.sql.ts';
import { SignerKeyRefusedError, SignerUnavailableError } from '../../signers/signing-key.ts';
import type { RunError } from '../model/run.entity.ts';
import { runErrorName } from '../../shared/outcomes.ts';

/**
 * Attempts of a run's prepare (its activity's, workflows/run-action.ts) while its signer's backend
 * cannot sign, before the run ends `SignerUnavailable` with nothing sent: about 15 s of backoff,
 * enough for a throttled KMS or a token busy a moment, short of holding the run for an outage
 * (an operator retries the run once the backend is back).
 */
export const signerAttempts = 5;

/**
 * Who sends the run's transaction: the signer's key, opened on this worker, for the signer's
 * recorded public key. A signer migrated without one (a `default` of before signers were several)
 * learns it from its key here, once the key is proved the recorded address's.
 */
export async function senderOf(deps: OpenKeyDeps & { em: EntityManager }, signer: Signer): Promise<Sender> {
  const key = await openSigningKey(signer, deps);
  const publicKey = signer.publicKey ?? key.publicKey;
  if (`0x${wallet.getScriptHashFromPublicKey(publicKey)}` !== signer.scriptHash) {
    throw new SignerMismatchError(`The signer's key is not that of its address ${signer.address}.`);
  }
  if (!signer.publicKey) await storePublicKey(deps.em, signer.id, publicKey);
  return keySender(key, publicKey);
}

/**
 * How a run ends when its signer's key failed to open or sign, nothing sent: null while another
 * attempt may succeed (`SignerUnavailable` before the last of signerAttempts), and for any other
 * error. The backend's own words stay in the worker's history: they may name its endpoint.
 */
export function signingEnd(error: unknown, lastAttempt: boolean): RunError | null {
  if (error instanceof SignerMismatchError) return { name: runErrorName.SignerMismatch, message: error.message };
  if (error instanceof MalformedKeyMaterialError) {
    const message = `The signer's backend answered ${error.message}. Nothing was sent.`;
    return { name: runErrorName.SignerMismatch, message };
  }
  if (error instanceof SignerKeyRefusedError) {
    // The backend's words may name the worker's own identity (an IAM role in an access denial).
    const message = `The signer's key cannot sign: its backend refused it (\`${error.field}\` names a key that is gone, of another kind, or not permitted to this worker); nothing was sent.`;
    return { name: runErrorName.SignerUnavailable, message };
  }
  if (error instanceof SignerUnavailableError && lastAttempt) {
    const message = `The signer's key could not sign in ${signerAttempts} attempts (its backend not reachable, throttled or its key disabled). Nothing was sent; retry the run once it can sign.`;
    return { name: runErrorName.SignerUnavailable, message };
  }
  return null;
}

import { randomBytes } from 'node:crypto';
import type { ProbeSignerInput, ProbeSignerResult } from '../shared/workflow-signatures.ts';
import { MalformedKeyMaterialError } from './ecdsa.ts';
import { signatureVerifies } from './signature-check.ts';
import { SignerKeyRefusedError, SignerUnavailableError, type SigningKey } from './signing-key.ts';

/** The field of the request that names the key: a refusal that is no backend's own names it. */
const keyField = (input: ProbeSignerInput) => (input.type === 'aws-kms' ? 'keyId' : 'keyLabel');

/**
 * Opens a new signer's remote key on the worker, as a send will, and has it sign a random digest:
 * a key that answers a public key but cannot sign, or signs as another key, is refused now rather
 * than at its first run. Answers what the API tells its client (201, 400 naming the field, 503).
 * `open`: how the key is opened (openRemoteKey on a worker; a test opens its own).
 */
export async function probeRemoteKey(
  input: ProbeSignerInput,
  open: (input: ProbeSignerInput) => Promise<SigningKey>,
): Promise<ProbeSignerResult> {
  try {
    const key = await open(input);
    const digest = randomBytes(32);
    if (!signatureVerifies(digest, await key.signDigest(digest), key.publicKey)) {
      const message = 'The key signed a test digest with a signature its public key does not verify.';
      return { outcome: 'refused', field: keyField(input), message };
    }
    return { outcome: 'key', publicKey: key.publicKey };
  } catch (error) {
    if (error instanceof SignerKeyRefusedError)
      return { outcome: 'refused', field: error.field, message: error.message };
    if (error instanceof MalformedKeyMaterialError) {
      return { outcome: 'refused', field: keyField(input), message: `The backend answered ${error.message}.` };
    }
    if (error instanceof SignerUnavailableError) return { outcome: 'unavailable', message: error.message };
    throw error;
  }
}

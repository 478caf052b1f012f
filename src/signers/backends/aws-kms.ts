import { GetPublicKeyCommand, KMSClient, KMSServiceException, SignCommand } from '@aws-sdk/client-kms';
import { compressedFromSpki, MalformedKeyMaterialError, rsFromDer } from '../ecdsa.ts';
import { SignerKeyRefusedError, SignerUnavailableError, type SigningKey } from '../signing-key.ts';

/**
 * An AWS KMS key as a Neo signer (issue 46): KMS signs a SHA-256 digest with the key's P-256
 * private key, which never leaves KMS. Credentials and endpoint come only from the worker's
 * standard AWS SDK environment (AWS_REGION, AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, a role,
 * AWS_ENDPOINT_URL_KMS…), never from a request: a signer names a key, not who may use it.
 */

interface AwsKmsKeyRef {
  /** A key id, key ARN, alias name or alias ARN. */
  keyId: string;
  /** The key's region when not the worker's AWS_REGION. */
  region?: string;
}

/** What a KMS error means for the signer: `refused` whatever is retried, else unavailable now. */
const refusals = new Set([
  'NotFoundException',
  'InvalidArnException',
  // keyId failed KMS's own checks (its length or characters); the digest is checked here first.
  'ValidationException',
  // The worker's credentials may not use this key (kms:GetPublicKey, kms:Sign).
  'AccessDeniedException',
  // A symmetric or HMAC key: it has no public key, and cannot sign.
  'UnsupportedOperationException',
  'InvalidKeyUsageException',
]);

const clients = new Map<string, KMSClient>();

/** One client per region: each keeps its connections open for the keys it serves. */
function clientFor(region: string | undefined): KMSClient {
  const key = region ?? '';
  let client = clients.get(key);
  if (!client) {
    client = new KMSClient({
      ...(region ? { region } : {}),
      // Bounded: a run waits on its signature, and the activity retries as a whole on unavailable.
      maxAttempts: 2,
      requestHandler: { connectionTimeout: 2_000, requestTimeout: 3_000, throwOnRequestTimeout: true },
    });
    clients.set(key, client);
  }
  return client;
}

/** A KMS failure as the port's two errors: nothing else escapes for the backend's sake. */
function asSignerError(error: unknown, keyId: string): Error {
  const reason = error instanceof Error ? error.message : String(error);
  if (error instanceof KMSServiceException && refusals.has(error.name)) {
    return new SignerKeyRefusedError(`AWS KMS refused key ${keyId}: ${error.name}: ${reason}`, 'keyId');
  }
  // Disabled or pending deletion, throttled, KMS or the network down, credentials missing: not now.
  const name = error instanceof Error ? `${error.name}: ` : '';
  return new SignerUnavailableError(`AWS KMS could not use key ${keyId}: ${name}${reason}`);
}

function refused(keyId: string, why: string) {
  return new SignerKeyRefusedError(`AWS KMS key ${keyId} ${why}`, 'keyId');
}

/** Reads the key's public key and checks that it can sign for Neo; then signs digests with it. */
export async function openAwsKmsKey(ref: AwsKmsKeyRef): Promise<SigningKey> {
  const client = clientFor(ref.region);
  let answer;
  try {
    answer = await client.send(new GetPublicKeyCommand({ KeyId: ref.keyId }));
  } catch (error) {
    throw asSignerError(error, ref.keyId);
  }
  if (answer.KeySpec !== 'ECC_NIST_P256') {
    throw refused(ref.keyId, `is of spec ${answer.KeySpec ?? 'unknown'}, not ECC_NIST_P256 (secp256r1)`);
  }
  if (answer.KeyUsage !== 'SIGN_VERIFY') throw refused(ref.keyId, `has usage ${answer.KeyUsage}, not SIGN_VERIFY`);
  if (!answer.PublicKey || !answer.KeyId) throw refused(ref.keyId, 'answered no public key');
  let publicKey: string;
  try {
    publicKey = compressedFromSpki(answer.PublicKey);
  } catch (error) {
    if (error instanceof MalformedKeyMaterialError) throw refused(ref.keyId, `answered ${error.message}`);
    throw error;
  }
  // The key's ARN, not an alias the ref may name: an alias moved to another key must not change
  // which key signs for this public key.
  const keyArn = answer.KeyId;
  return {
    publicKey,
    async signDigest(digest) {
      if (digest.length !== 32) throw new RangeError(`a digest of ${digest.length} bytes, not SHA-256's 32`);
      let signed;
      try {
        signed = await client.send(
          new SignCommand({ KeyId: keyArn, Message: digest, MessageType: 'DIGEST', SigningAlgorithm: 'ECDSA_SHA_256' }),
        );
      } catch (error) {
        throw asSignerError(error, ref.keyId);
      }
      if (!signed.Signature) throw new SignerUnavailableError(`AWS KMS answered no signature for key ${ref.keyId}`);
      try {
        return rsFromDer(signed.Signature);
      } catch (error) {
        if (error instanceof MalformedKeyMaterialError) throw refused(ref.keyId, `signed ${error.message}`);
        throw error;
      }
    },
  };
}

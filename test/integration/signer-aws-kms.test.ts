import { createHash, randomBytes } from 'node:crypto';
import {
  CreateKeyCommand,
  DisableKeyCommand,
  EnableKeyCommand,
  GetPublicKeyCommand,
  KMSClient,
  type KeySpec,
  type KeyUsageType,
} from '@aws-sdk/client-kms';
import { wallet } from '@cityofzion/neon-js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { openAwsKmsKey } from '../../src/signers/backends/aws-kms.ts';
import { SignerKeyRefusedError, SignerUnavailableError, type SigningKey } from '../../src/signers/signing-key.ts';
import { startLocalKms, type LocalKms } from '../support/local-kms.ts';

const halfOrder = 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551n >> 1n;
const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');

let kms: LocalKms;
/** The test's own KMS client: it creates and disables keys as their owner would. */
let owner: KMSClient;

beforeAll(async () => {
  kms = await startLocalKms();
  // The backend reads the worker's standard AWS environment, and only that.
  for (const [name, value] of Object.entries(kms.env)) vi.stubEnv(name, value);
  owner = new KMSClient({
    region: kms.region,
    endpoint: kms.env.AWS_ENDPOINT_URL_KMS!,
    credentials: { accessKeyId: 'owner', secretAccessKey: 'owner' },
  });
});

afterAll(async () => {
  owner?.destroy();
  vi.unstubAllEnvs();
  await kms?.close();
});

async function createKey(KeySpec: KeySpec, KeyUsage: KeyUsageType = 'SIGN_VERIFY') {
  const { KeyMetadata } = await owner.send(new CreateKeyCommand({ KeySpec, KeyUsage }));
  return KeyMetadata!.KeyId!;
}

/** Signs SHA-256 of a random message and checks the signature as Neo's nodes would. */
async function signsForNeo(key: SigningKey) {
  const message = randomBytes(40).toString('hex');
  const signature = await key.signDigest(createHash('sha256').update(Buffer.from(message, 'hex')).digest());
  expect(signature).toHaveLength(64);
  expect(BigInt(`0x${hex(signature.subarray(32))}`) <= halfOrder).toBe(true);
  // neon-js hashes the message itself: the witness check of a Neo node.
  expect(wallet.verify(message, hex(signature), key.publicKey)).toBe(true);
}

describe('AWS KMS signing keys (local-kms)', () => {
  it("a P-256 key becomes a signer whose address is its public key's, and whose signatures verify", async () => {
    const keyId = await createKey('ECC_NIST_P256');
    const key = await openAwsKmsKey({ keyId, region: kms.region });

    // The address neon-js derives from the SPKI the owner reads: a P-256 SPKI ends in the point 04‖x‖y.
    const { PublicKey } = await owner.send(new GetPublicKeyCommand({ KeyId: keyId }));
    const ownersKey = wallet.getPublicKeyEncoded(hex(PublicKey!.subarray(-65)));
    expect(new wallet.Account(key.publicKey).address).toBe(new wallet.Account(ownersKey).address);

    // Many signatures: KMS answers a high s about half the time, which Neo's nodes must not see.
    for (let i = 0; i < 16; i++) await signsForNeo(key);
  });

  it('a key that cannot sign for Neo, or that does not exist, is refused naming keyId', async () => {
    const keyIds = [
      await createKey('RSA_2048'),
      await createKey('ECC_SECG_P256K1'),
      await createKey('SYMMETRIC_DEFAULT', 'ENCRYPT_DECRYPT'),
      '8c3f5e2a-0d4b-4c1e-9a7f-3b2d1e0f9a8b',
    ];
    for (const keyId of keyIds) {
      const opening = openAwsKmsKey({ keyId });
      await expect(opening).rejects.toBeInstanceOf(SignerKeyRefusedError);
      await expect(opening).rejects.toMatchObject({ field: 'keyId', message: expect.stringContaining(keyId) });
    }
  });

  it('a disabled key is unavailable, and signs again once enabled', async () => {
    const keyId = await createKey('ECC_NIST_P256');
    const key = await openAwsKmsKey({ keyId });
    await owner.send(new DisableKeyCommand({ KeyId: keyId }));
    await expect(key.signDigest(randomBytes(32))).rejects.toBeInstanceOf(SignerUnavailableError);
    await expect(openAwsKmsKey({ keyId })).rejects.toBeInstanceOf(SignerUnavailableError);
    await owner.send(new EnableKeyCommand({ KeyId: keyId }));
    await signsForNeo(key);
  });

  it('KMS unreachable is unavailable; restarted with its keys, the same key signs again', async () => {
    const keyId = await createKey('ECC_NIST_P256');
    const key = await openAwsKmsKey({ keyId });
    await kms.stop();
    await expect(key.signDigest(randomBytes(32))).rejects.toBeInstanceOf(SignerUnavailableError);
    await expect(openAwsKmsKey({ keyId })).rejects.toBeInstanceOf(SignerUnavailableError);
    await kms.restart();
    await signsForNeo(key);
    expect((await openAwsKmsKey({ keyId })).publicKey).toBe(key.publicKey);
  });
});

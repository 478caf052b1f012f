import { CreateKeyCommand, GetPublicKeyCommand, KMSClient } from '@aws-sdk/client-kms';
import { wallet } from '@cityofzion/neon-js';
import { afterAll, beforeAll, describe, it, vi } from 'vitest';
import type { TestApi } from '../support/api.ts';
import { automationsClient } from '../support/automations.ts';
import { issueKey } from '../support/keys.ts';
import { startLocalKms, type LocalKms } from '../support/local-kms.ts';
import { acceptsRemoteKey } from '../support/remote-signer-acceptance.ts';
import { startApiWithWorker, type RunningWorker } from '../support/worker.ts';

let kms: LocalKms;
let api: TestApi;
let worker: RunningWorker;
let client: ReturnType<typeof automationsClient>;

beforeAll(async () => {
  kms = await startLocalKms();
  // The backend reads the worker's standard AWS environment: this process's, the worker being in it.
  for (const [name, value] of Object.entries(kms.env)) vi.stubEnv(name, value);
  // The API hosts no worker: the key is probed, and every transaction signed, by the worker.
  ({ api, worker } = await startApiWithWorker({ hostWorker: false }));
  client = automationsClient(api.url, (await issueKey(api.database.orm)).key);
});

afterAll(async () => {
  await worker?.stop();
  await api?.close();
  vi.unstubAllEnvs();
  await kms?.close();
});

describe('an AWS KMS key (local-kms) as a signer (issue 46)', () => {
  it('sends witnessed by the KMS key; KMS stopped, a run ends SignerUnavailable unsent, and its retry sends once', async () => {
    // The key's owner makes it through the KMS API, and reads its public key there.
    const owner = new KMSClient({
      region: kms.region,
      endpoint: kms.env.AWS_ENDPOINT_URL_KMS!,
      credentials: { accessKeyId: 'owner', secretAccessKey: 'owner' },
    });
    const { KeyMetadata } = await owner.send(
      new CreateKeyCommand({ KeySpec: 'ECC_NIST_P256', KeyUsage: 'SIGN_VERIFY' }),
    );
    const keyId = KeyMetadata!.KeyId!;
    const { PublicKey } = await owner.send(new GetPublicKeyCommand({ KeyId: keyId }));
    owner.destroy();
    // A P-256 SPKI ends in the uncompressed point 04‖x‖y.
    const publicKey = wallet.getPublicKeyEncoded(Buffer.from(PublicKey!.subarray(-65)).toString('hex'));

    await acceptsRemoteKey(client, {
      body: { type: 'aws-kms', name: 'kms-treasury', keyId },
      publicKey,
      cutOff: () => kms.stop(),
      restore: () => kms.restart(),
    });
  }, 240_000);
});

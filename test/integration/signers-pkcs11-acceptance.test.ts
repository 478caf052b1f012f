import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { wallet } from '@cityofzion/neon-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../support/api.ts';
import { automationsClient } from '../support/automations.ts';
import { issueKey } from '../support/keys.ts';
import { acceptsRemoteKey } from '../support/remote-signer-acceptance.ts';
import { softHsmModule, startSoftHsm, type SoftHsm } from '../support/softhsm.ts';
import { testWorkerEnv } from '../support/temporal.ts';
import { startWorkerProcess, type WorkerProcess } from '../support/worker-process.ts';

const pin = '731950';

let hsm: SoftHsm;
let scratch: string;
let taskQueue: string;
let api: TestApi;
let worker: WorkerProcess | undefined;
let workers = 0;
let client: ReturnType<typeof automationsClient>;

/**
 * `neoflow worker` as its own process, the only one on the task queue, its PKCS#11 module SoftHSM2
 * with this file's token directory: the HSM lives in that process, as a module loaded into it.
 */
async function startWorker() {
  const env = {
    NEOFLOW_PKCS11_MODULE: softHsmModule,
    NEOFLOW_PKCS11_PIN: pin,
    SOFTHSM2_CONF: process.env.SOFTHSM2_CONF!,
  };
  worker = await startWorkerProcess(
    api.database.url,
    taskQueue,
    join(scratch, 'data'),
    join(scratch, `worker-${++workers}.log`),
    testWorkerEnv(api.database.url, env),
  );
}

beforeAll(async () => {
  hsm = await startSoftHsm();
  await hsm.initToken('neoflow', pin);
  await hsm.generateKey('neoflow', pin, 'treasury', 'P-256');
  scratch = await mkdtemp(join(tmpdir(), 'neoflow-pkcs11-'));
  taskQueue = `pkcs11-${randomBytes(4).toString('hex')}`;
  // The API hosts no worker and loads no module: the key is probed, and signs, in the worker.
  api = await startTestApi([], { NEOFLOW_TASK_QUEUE: taskQueue }, { hostWorker: false });
  client = automationsClient(api.url, (await issueKey(api.database.orm)).key);
  await startWorker();
}, 120_000);

afterAll(async () => {
  await worker?.stop();
  await api?.close();
  await hsm?.stop();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

describe('a PKCS#11 key (SoftHSM2) generated inside the token as a signer (issue 46)', () => {
  it('sends witnessed by the token key; the token gone, a run ends SignerUnavailable unsent, and its retry sends once', async () => {
    const view = await hsm.inspectKey('neoflow', pin, 'treasury');
    // Generated inside the token, never to leave it.
    expect(view).toMatchObject({ sensitive: true, extractable: false, valueRead: 'CKR_ATTRIBUTE_SENSITIVE' });
    const publicKey = wallet.getPublicKeyEncoded(view.ecPoint.slice(4));

    const tokens = join(dirname(process.env.SOFTHSM2_CONF!), 'tokens');
    const [tokenDir] = await readdir(tokens);
    const away = join(dirname(tokens), 'token-away');
    await acceptsRemoteKey(client, {
      body: { type: 'pkcs11', name: 'hsm-treasury', tokenLabel: 'neoflow', keyLabel: 'treasury' },
      publicKey,
      // The token's directory moved away, and the worker restarted meanwhile: it opens the key
      // afresh, finds no token of that label, and must take it for an outage (the signer was accepted).
      cutOff: async () => {
        await rename(join(tokens, tokenDir!), away);
        await worker!.stop();
        await startWorker();
      },
      // SoftHSM2 lists its tokens when the module initialises: the HSM back is its worker restarted.
      restore: async () => {
        await rename(away, join(tokens, tokenDir!));
        await worker!.stop();
        await startWorker();
      },
    });
  }, 240_000);
});

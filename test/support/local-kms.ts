import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inject } from 'vitest';
import { freePort } from '../../src/net/ports.ts';
import { spawnManaged, waitFor, type ManagedProcess } from '../../src/stack/process.ts';

export interface LocalKms {
  /** The AWS SDK environment of a worker using it: endpoint, region and (unchecked) credentials. */
  readonly env: Record<string, string>;
  readonly region: string;
  /** Stops the server; its keys stay in the data directory. */
  stop(): Promise<void>;
  /** Stops it if running, then starts it again on the same port with the same keys. */
  restart(): Promise<void>;
  /** Stops it and removes its data. */
  close(): Promise<void>;
}

const region = 'eu-west-2';

/** Ready once it answers a KMS call; it checks no signature, so any credentials do. */
async function answers(endpoint: string): Promise<true | undefined> {
  const response = await fetch(endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/x-amz-json-1.1', 'x-amz-target': 'TrentService.ListKeys' },
    body: '{}',
  });
  return response.ok ? true : undefined;
}

/**
 * local-kms (built by the integration setup) on a free port with a throw-away data directory. It
 * listens on every interface (it takes only a port); tests reach it on loopback.
 */
export async function startLocalKms(): Promise<LocalKms> {
  const dir = await mkdtemp(join(tmpdir(), 'neoflow-local-kms-'));
  const port = await freePort();
  const endpoint = `http://127.0.0.1:${port}`;
  const env = {
    PORT: String(port),
    KMS_DATA_PATH: join(dir, 'data'),
    KMS_REGION: region,
    KMS_ACCOUNT_ID: '111122223333',
    // A path with no file: no seed keys, whatever the machine has at local-kms's default /init.
    KMS_SEED_PATH: join(dir, 'no-seed.yaml'),
  };
  let server: ManagedProcess | undefined;
  const start = async () => {
    const started = spawnManaged('local-kms', inject('localKmsPath'), {
      args: [],
      env: { PATH: process.env.PATH, ...env },
      output: join(dir, 'local-kms.log'),
    });
    server = started;
    await waitFor(`local-kms on ${endpoint}`, () => answers(endpoint), {
      timeoutMs: 30_000,
      aborted: started.exited,
    });
  };
  const stop = async () => {
    await server?.stop();
    server = undefined;
  };
  try {
    await start();
  } catch (error) {
    await stop();
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    env: {
      AWS_ENDPOINT_URL_KMS: endpoint,
      AWS_REGION: region,
      AWS_ACCESS_KEY_ID: 'local-kms',
      AWS_SECRET_ACCESS_KEY: 'local-kms',
    },
    region,
    stop,
    restart: async () => {
      await stop();
      await start();
    },
    close: async () => {
      await stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

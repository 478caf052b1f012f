import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { freePort } from '../../src/net/ports.ts';
import { dockerCompose, ensureGoProgram } from '../../src/stack/binaries.ts';
import { waitFor } from '../../src/stack/process.ts';
import { filledEnv, renderCompose } from '../support/compose.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { neoflowArgs, spawnNeoflow } from '../support/neoflow-command.ts';

const run = promisify(execFile);

let compose: string;
let scratch: string;
let database: TestDatabase;
beforeAll(async () => {
  compose = await ensureGoProgram(dockerCompose, loadConfig({}).binDir, (line) => console.log(`[compose] ${line}`));
  scratch = await mkdtemp(join(tmpdir(), 'neoflow-compose-'));
  database = await createTestDatabase({ migrated: false });
}, 1_800_000);
afterAll(async () => {
  await database?.drop();
  await rm(scratch, { recursive: true, force: true });
});

const render = (env: Record<string, string>) => renderCompose(compose, scratch, env);

/** A service's rendered environment, its hosts mapped to the services this test runs on loopback. */
function onLoopback(environment: Record<string, string>, apiPort: number): Record<string, string> {
  return {
    ...environment,
    DATABASE_URL: database.url,
    TEMPORAL_ADDRESS: inject('temporalAddress'),
    NEO_RPC_URL: inject('neoRpcUrl'),
    NEOFLOW_API_HOST: '127.0.0.1',
    NEOFLOW_API_PORT: String(apiPort),
    NEOFLOW_TASK_QUEUE: `compose-${randomBytes(4).toString('hex')}`,
    NEOFLOW_DATA_DIR: join(scratch, 'data'),
    NEOFLOW_WORKER_METRICS_PORT: '0',
  };
}

describe('docker-compose.yml, rendered by Docker Compose and started service by service', () => {
  it('refuses to render while a production secret is missing from .env, naming it', async () => {
    for (const missing of Object.keys(filledEnv())) {
      const env = filledEnv();
      delete env[missing];
      await expect(render(env)).rejects.toThrow(new RegExp(`${missing}`));
    }
  });

  it('gives migrate, api and worker every variable their commands need in production', async () => {
    const { services } = await render(filledEnv());
    const apiPort = await freePort();
    for (const name of ['migrate', 'api', 'worker']) {
      expect(services[name]!.environment).toMatchObject({ NEOFLOW_ENV: 'production' });
    }

    const migrate = await run(process.execPath, neoflowArgs('migrate'), {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, ...onLoopback(services.migrate!.environment!, apiPort) },
    });
    expect(migrate.stdout).toMatch(/applied 0001/);

    const api = spawnNeoflow('api', onLoopback(services.api!.environment!, apiPort), join(scratch, 'api.log'));
    const worker = spawnNeoflow(
      'worker',
      onLoopback(services.worker!.environment!, apiPort),
      join(scratch, 'worker.log'),
    );
    try {
      await waitFor('api', async () => ((await fetch(`http://127.0.0.1:${apiPort}/v1/livez`)).ok ? true : undefined), {
        timeoutMs: 90_000,
        aborted: api.exited,
      });
      await waitFor(
        'worker',
        async () =>
          (await readFile(join(scratch, 'worker.log'), 'utf8')).includes('"msg":"polling"') ? true : undefined,
        { timeoutMs: 90_000, aborted: worker.exited },
      );
    } finally {
      await Promise.all([api.stop(), worker.stop()]);
    }
  });

  it('passes NEOFLOW_NETWORKS and NEOFLOW_BLOCK_AGREEMENT from .env to the api and the worker, and by default follows the compose node alone', async () => {
    const networks =
      '[{"name": "alpha", "rpc": ["https://a.example:10332"]}, {"name": "beta", "rpc": ["https://b.example:10332", "https://c.example:10332"]}]';
    const several = await render({
      ...filledEnv(),
      NEOFLOW_NETWORKS: `'${networks}'`,
      NEOFLOW_BLOCK_AGREEMENT: '2',
      NEO_RPC_URL: '',
    });
    const unset = await render(filledEnv());
    for (const name of ['api', 'worker']) {
      const environment = several.services[name]!.environment!;
      expect(environment).toMatchObject({ NEOFLOW_NETWORKS: networks, NEOFLOW_BLOCK_AGREEMENT: '2' });
      expect(loadConfig(environment).neo).toMatchObject({
        networks: [{ name: 'alpha' }, { name: 'beta', nodes: [{}, {}] }],
        blockAgreement: 2,
      });
      expect(loadConfig(unset.services[name]!.environment ?? {}).neo).toMatchObject({
        networks: [{ name: 'default', nodes: [{ url: 'http://neo:20332' }] }],
        blockAgreement: 1,
      });
    }
  });

  it('passes the PKCS#11 module and PIN from .env to the worker alone, and the worker reads them', async () => {
    const pkcs11 = { NEOFLOW_PKCS11_MODULE: '/opt/hsm/libpkcs11.so', NEOFLOW_PKCS11_PIN: '482913' };
    const { services } = await render({ ...filledEnv(), ...pkcs11 });
    expect(services.worker!.environment).toMatchObject(pkcs11);
    expect(loadConfig(services.worker!.environment).worker.pkcs11).toEqual({
      module: pkcs11.NEOFLOW_PKCS11_MODULE,
      pin: '482913',
    });
    for (const name of ['api', 'migrate'])
      expect(Object.keys(services[name]!.environment!)).not.toContain('NEOFLOW_PKCS11_PIN');
  });

  it("passes the AWS SDK's standard variables from .env to the worker alone, empty when unset", async () => {
    const aws = {
      AWS_REGION: 'eu-central-1',
      AWS_ACCESS_KEY_ID: 'AKIAEXAMPLEKEY',
      AWS_SECRET_ACCESS_KEY: 'example-secret-access-key',
      AWS_SESSION_TOKEN: 'example-session-token',
      AWS_ENDPOINT_URL_KMS: 'https://kms.example:4443',
    };
    const set = await render({ ...filledEnv(), ...aws });
    const unset = await render(filledEnv());
    expect(set.services.worker!.environment).toMatchObject(aws);
    // Empty, the SDK looks further (credentials: an instance or task role; endpoint: the region's).
    expect(unset.services.worker!.environment).toMatchObject(
      Object.fromEntries(Object.keys(aws).map((name) => [name, ''])),
    );
    for (const name of ['api', 'migrate'])
      expect(Object.keys(set.services[name]!.environment!).filter((key) => key.startsWith('AWS_'))).toEqual([]);
  });

  it('a command started without a secret the file gives it stops at once, naming it', async () => {
    const { services } = await render(filledEnv());
    const environment = onLoopback(services.api!.environment!, await freePort());
    delete environment.NEOFLOW_PAYLOAD_KEY;
    const started = run(process.execPath, neoflowArgs('api'), {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, ...environment },
    });
    await expect(started).rejects.toMatchObject({ stderr: expect.stringContaining('NEOFLOW_PAYLOAD_KEY') });
  });
});

import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { parse } from 'yaml';
import Long from 'long';
import { Connection } from '@temporalio/client';
import { loadConfig } from '../../src/config.ts';
import { waitFor } from '../../src/stack/process.ts';
import { executeOnce } from '../../src/db/execute-once.ts';
import {
  productionTemporal,
  startTemporalOnPostgres,
  temporalDeployDir,
  temporalServerPorts,
  type TemporalOnPostgres,
} from '../support/temporal-on-postgres.ts';

const run = promisify(execFile);
const binDir = loadConfig({}).binDir;
const suffix = randomBytes(4).toString('hex');
const databases = { DBNAME: `temporal_${suffix}`, VISIBILITY_DBNAME: `temporal_vis_${suffix}` };

interface Service {
  environment?: Record<string, string | number>;
  entrypoint?: string[];
  volumes?: string[];
}
let services: Record<string, Service>;
let paths: Awaited<ReturnType<typeof productionTemporal>>;
let server: TemporalOnPostgres | undefined;

beforeAll(async () => {
  // The compose file as written; its variables filled in the way `docker compose` would.
  const compose = (await readFile(new URL('../../docker-compose.yml', import.meta.url), 'utf8')).replaceAll(
    /\$\{POSTGRES_PASSWORD:\?[^}]*\}/g,
    'unused-here',
  );
  services = (parse(compose, { merge: true }) as { services: Record<string, Service> }).services;
  paths = await productionTemporal(binDir, (line) => console.log(`[temporal-server build] ${line}`));
}, 1_200_000);

afterAll(async () => {
  await server?.stop();
  const admin = inject('adminDatabaseUrl');
  for (const name of Object.values(databases))
    await executeOnce(admin, `drop database if exists "${name}" with (force)`);
});

/** The service's variables, its hosts mapped to this machine's PostgreSQL (trust auth, user postgres). */
function localEnvOf(service: Service, extra: Record<string, string> = {}) {
  const env = Object.fromEntries(Object.entries(service.environment ?? {}).map(([key, value]) => [key, String(value)]));
  return {
    ...env,
    POSTGRES_SEEDS: '127.0.0.1',
    POSTGRES_USER: 'postgres',
    POSTGRES_PWD: '',
    ...databases,
    ...extra,
    PATH: `${binDir}:${process.env.PATH}`,
  };
}

it('the compose file sets Temporal up the way this test does: the schema job runs deploy/temporal/setup-schema.sh, the server deploy/temporal/config', () => {
  expect(services['temporal-schema']!.entrypoint).toEqual(['/bin/sh', '/usr/local/bin/setup-schema.sh']);
  expect(services['temporal-schema']!.volumes).toContain(
    './deploy/temporal/setup-schema.sh:/usr/local/bin/setup-schema.sh:ro',
  );
  expect(services.temporal!.entrypoint).toEqual(
    expect.arrayContaining(['temporal-server', '--config', 'config', '--env', 'docker', 'start']),
  );
  expect(services.temporal!.volumes).toContain('./deploy/temporal/config:/etc/neoflow-temporal/config:ro');
});

it('sets up the schema on PostgreSQL with the pinned temporal-sql-tool, twice without harm, and the pinned temporal-server runs on it', async () => {
  const schemaEnv = localEnvOf(services['temporal-schema']!, { SCHEMA_DIR: paths.schemaDir });
  for (let time = 0; time < 2; time++) {
    const { stdout } = await run('sh', [`${temporalDeployDir}setup-schema.sh`], { env: schemaEnv });
    expect(stdout).toContain(`temporal schema: ${databases.VISIBILITY_DBNAME} up to date`);
  }

  server = await startTemporalOnPostgres(
    paths.server,
    localEnvOf(services.temporal!, await temporalServerPorts()),
    join(tmpdir(), `neoflow-temporal-server-${suffix}.log`),
  );
  const connection = await Connection.connect({ address: server.address });
  try {
    await connection.workflowService.registerNamespace({
      namespace: 'neoflow-test',
      workflowExecutionRetentionPeriod: { seconds: Long.fromNumber(86_400) },
    });
    const described = await waitFor(
      'namespace',
      async () => connection.workflowService.describeNamespace({ namespace: 'neoflow-test' }).catch(() => undefined),
      { timeoutMs: 30_000 },
    );
    expect(described.namespaceInfo?.name).toBe('neoflow-test');
  } finally {
    await connection.close();
  }
});

import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { parse } from 'yaml';
import Long from 'long';
import { Connection } from '@temporalio/client';
import { loadConfig } from '../../src/config.ts';
import { freePort, isPortFree } from '../../src/net/ports.ts';
import { ensureGoProgram, temporalServer, temporalSqlTool } from '../../src/stack/binaries.ts';
import { spawnManaged, waitFor, type ManagedProcess } from '../../src/stack/process.ts';
import { executeOnce } from '../../src/db/execute-once.ts';

const run = promisify(execFile);
const deploy = fileURLToPath(new URL('../../deploy/temporal/', import.meta.url));
const binDir = loadConfig({}).binDir;
const suffix = randomBytes(4).toString('hex');
const databases = { DBNAME: `temporal_${suffix}`, VISIBILITY_DBNAME: `temporal_vis_${suffix}` };

interface Service {
  environment?: Record<string, string | number>;
  entrypoint?: string[];
  volumes?: string[];
}
let services: Record<string, Service>;
let paths: { server: string; sqlTool: string };
let schemaDir: string;
let server: ManagedProcess | undefined;

beforeAll(async () => {
  // The compose file as written; its variables filled in the way `docker compose` would.
  const compose = (await readFile(new URL('../../docker-compose.yml', import.meta.url), 'utf8')).replaceAll(
    /\$\{POSTGRES_PASSWORD:\?[^}]*\}/g,
    'unused-here',
  );
  services = (parse(compose, { merge: true }) as { services: Record<string, Service> }).services;
  const progress = (line: string) => console.log(`[temporal-server build] ${line}`);
  paths = {
    server: await ensureGoProgram(temporalServer, binDir, progress),
    sqlTool: await ensureGoProgram(temporalSqlTool, binDir, progress),
  };
  const { stdout } = await run('go', ['mod', 'download', '-json', `go.temporal.io/server@${temporalServer.version}`]);
  schemaDir = `${(JSON.parse(stdout) as { Dir: string }).Dir}/schema/postgresql/v12`;
}, 1_200_000);

afterAll(async () => {
  await server?.stop();
  const admin = inject('adminDatabaseUrl');
  for (const name of Object.values(databases))
    await executeOnce(admin, `drop database if exists "${name}" with (force)`);
});

/** Temporal stores membership ports as a PostgreSQL smallint: a free one below 32768. */
async function membershipPort(): Promise<number> {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    if (await isPortFree(port)) return port;
  }
}

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
  const schemaEnv = localEnvOf(services['temporal-schema']!, { SCHEMA_DIR: schemaDir });
  for (let time = 0; time < 2; time++) {
    const { stdout } = await run('sh', [`${deploy}setup-schema.sh`], { env: schemaEnv });
    expect(stdout).toContain(`temporal schema: ${databases.VISIBILITY_DBNAME} up to date`);
  }

  const ports = Object.fromEntries(
    await Promise.all(
      [
        'FRONTEND_GRPC_PORT',
        'FRONTEND_HTTP_PORT',
        'FRONTEND_MEMBERSHIP_PORT',
        'MATCHING_GRPC_PORT',
        'MATCHING_MEMBERSHIP_PORT',
        'HISTORY_GRPC_PORT',
        'HISTORY_MEMBERSHIP_PORT',
        'WORKER_GRPC_PORT',
        'WORKER_MEMBERSHIP_PORT',
      ].map(async (name) => [
        name,
        String(name.endsWith('MEMBERSHIP_PORT') ? await membershipPort() : await freePort()),
      ]),
    ),
  );
  const serverEnv = localEnvOf(services.temporal!, {
    ...ports,
    BIND_ON_IP: '127.0.0.1',
    DYNAMIC_CONFIG_FILE_PATH: `${deploy}config/dynamicconfig/neoflow.yaml`,
  });
  server = spawnManaged('temporal-server', paths.server, {
    args: ['--root', deploy, '--config', 'config', '--env', 'docker', 'start'],
    env: serverEnv,
    output: join(tmpdir(), `neoflow-temporal-server-${suffix}.log`),
  });
  const address = `127.0.0.1:${ports.FRONTEND_GRPC_PORT}`;
  const connection = await waitFor(
    'temporal-server',
    async () => {
      try {
        const connected = await Connection.connect({ address, connectTimeout: '2s' });
        await connected.workflowService.getSystemInfo({});
        return connected;
      } catch {
        return undefined;
      }
    },
    { timeoutMs: 120_000, aborted: server.exited },
  );
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

import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { MikroORM } from '@mikro-orm/postgresql';
import { createApp } from '../src/app/app.ts';
import { triggerControlOf } from '../src/automations/trigger-control.service.ts';
import { createKey, type CreateKeyOptions } from '../src/auth/keys.service.ts';
import type { NeoRpc } from '../src/chain/rpc.ts';
import { loadConfig } from '../src/config.ts';
import { migrate, openOrm } from '../src/orm.ts';
import { createLogger } from '../src/log.ts';
import { closeResources, openResources } from '../src/open-resources.ts';
import type { TemporalHandle } from '../src/temporal/connect.ts';
import { scratchDataDir, startScratchServices, type ScratchServices } from '../test/support/scratch-services.ts';
import type { Progress } from './measure.ts';

/** What every benchmark stack starts with: real services in a scratch directory and a migrated database. */
export interface ScratchStack {
  scratch: string;
  services: ScratchServices;
  orm: MikroORM;
  /** The variables every process of the stack reads: the services, a fresh task queue, fresh keys. */
  env: ReturnType<typeof stackEnv>;
  /** Adds a step to the stack's stop; the steps run newest first, before the directory is removed. */
  onStop(step: () => Promise<void>): void;
}

/**
 * Embedded PostgreSQL, the Temporal dev server and a neo-go devnet on free ports in a fresh scratch
 * directory, and a migrated database, like the integration tests start them; then `build` adds the
 * rest. If anything fails to start, what did is stopped before the error is thrown.
 */
export async function startScratchStack<Stack>(
  prefix: string,
  progress: Progress,
  build: (base: ScratchStack) => Promise<Stack>,
): Promise<Stack & { stop(): Promise<void> }> {
  const steps: (() => Promise<void>)[] = [];
  const scratch = await scratchDataDir(prefix);
  const stop = async () => {
    for (const step of steps.reverse())
      await step().catch((error: unknown) => progress(`stop failed: ${String(error)}`));
    steps.length = 0;
    await rm(scratch, { recursive: true, force: true });
  };
  try {
    const base = await startBase(scratch, progress, (step) => void steps.push(step));
    return { ...(await build(base)), stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

async function startBase(scratch: string, progress: Progress, onStop: ScratchStack['onStop']): Promise<ScratchStack> {
  let began = performance.now();
  const services = await startScratchServices(scratch, progress);
  onStop(() => services.stop());
  progress(
    `services up: postgres, temporal ${services.temporalAddress}, neo ${services.neoRpcUrl} (${elapsed(began)})`,
  );

  began = performance.now();
  const orm = await openOrm(services.postgresUrl);
  onStop(() => orm.close());
  await migrate(orm);
  progress(`database migrated (${elapsed(began)})`);
  return { scratch, services, orm, env: stackEnv(services), onStop };
}

function stackEnv(services: ScratchServices) {
  return {
    DATABASE_URL: services.postgresUrl,
    TEMPORAL_ADDRESS: services.temporalAddress,
    NEO_RPC_URL: services.neoRpcUrl,
    NEOFLOW_TASK_QUEUE: `bench-${randomBytes(4).toString('hex')}`,
    NEOFLOW_PAYLOAD_KEY: randomBytes(32).toString('base64'),
    NEOFLOW_MASTER_KEY: randomBytes(32).toString('base64'),
    NEOFLOW_OPERATOR_TOKEN: randomBytes(24).toString('hex'),
    // The benchmarks' price source is served on loopback, which tenants cannot reach by default.
    NEOFLOW_EGRESS_ALLOW: '127.0.0.1',
    // Schedules firing and prices read every second, under the 10 s allowed by default.
    NEOFLOW_SHORTEST_SCHEDULE_SECONDS: '1',
    NEOFLOW_SHORTEST_POLL_SECONDS: '1',
    // A benchmark measures throughput, not the per-account quotas.
    NEOFLOW_ACCOUNT_AUTOMATIONS: '1000000',
    NEOFLOW_ACCOUNT_QUEUED_EXECUTIONS: '1000000',
  };
}

interface InProcessApi {
  apiUrl: string;
  apiKey: string;
  temporal: TemporalHandle;
  /** neo-go itself, as the API calls it. */
  neo: NeoRpc;
  /** Creates a key of every scope for another account, named `accountName`. */
  keyFor(accountName: string): Promise<string>;
}

/**
 * The API in this process over HTTP on a free port, configured by the stack's variables and `env`,
 * with a key of every scope (`keyOptions` may raise its rate limit).
 */
export async function startInProcessApi(
  base: ScratchStack,
  progress: Progress,
  env: Record<string, string> = {},
  keyOptions: CreateKeyOptions = {},
): Promise<InProcessApi> {
  const began = performance.now();
  const config = loadConfig({
    ...base.env,
    NEOFLOW_LOG_LEVEL: 'warn',
    NEOFLOW_DATA_DIR: join(base.scratch, 'api'),
    ...env,
  });
  // Its own connections, as in `neoflow api`: the bench's queries do not share its pool.
  const resources = await openResources(config, createLogger('api-bench', 'warn'));
  base.onStop(() => closeResources(resources));
  const handle = createApp({
    ...resources,
    triggerControl: triggerControlOf(resources),
    localRuns: undefined,
  }).callback();
  const server = createServer((request, response) => void handle(request, response));
  const apiUrl = await listenLocal(server);
  base.onStop(() => closeServer(server));
  const { key } = await createKey(resources.orm.em.fork(), resources.masterKeys, 'bench', ['*'], keyOptions);
  progress(`api ${apiUrl}, key created (${elapsed(began)})`);
  const keyFor = async (accountName: string) =>
    (await createKey(resources.orm.em.fork(), resources.masterKeys, accountName, ['*'], keyOptions)).key;
  return { apiUrl, apiKey: key, temporal: resources.temporal, neo: resources.neo, keyFor };
}

/** A caller of the stack's API with its key; `Body` is what the caller expects the answers to hold. */
export function apiClient<Body = unknown>(api: { apiUrl: string; apiKey: string }) {
  return async (method: string, path: string, body?: unknown): Promise<{ status: number; body: Body }> => {
    const response = await fetch(`${api.apiUrl}/v1${path}`, {
      method,
      headers: { 'X-API-Key': api.apiKey, 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as Body };
  };
}

/** Listens on a free loopback port; answers the server's base URL. */
export async function listenLocal(server: Server): Promise<string> {
  await new Promise<void>((resolveListen) => server.listen(0, '127.0.0.1', resolveListen));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Closes `server`, dropping kept-alive connections rather than waiting for them. */
export function closeServer(server: Server) {
  return new Promise<void>((resolveClose) => {
    server.close(() => resolveClose());
    server.closeAllConnections();
  });
}

export function elapsed(began: number) {
  return `${((performance.now() - began) / 1000).toFixed(1)} s`;
}

import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { MikroORM } from '@mikro-orm/postgresql';
import { loadConfig } from '../../src/config.ts';
import { executeOnce } from '../../src/db/execute-once.ts';
import { migrate, openOrm } from '../../src/orm.ts';
import { freePort } from '../../src/net/ports.ts';
import { ensureGoProgram, neoGo, temporalCli } from '../../src/stack/binaries.ts';
import { startEmbeddedPostgres } from '../../src/stack/embedded-postgres.ts';
import { startNeoDevnet, type DevWallet } from '../../src/stack/neo-devnet.ts';
import { startTemporalDev } from '../../src/stack/temporal-dev.ts';
import { startApiProcess, type ApiProcess } from './api-process.ts';
import { withSharedBundleCache } from './bundle-cache.ts';
import { testEgressEnv, testSecretsEnv } from './temporal.ts';
import { startWorkerProcess, type WorkerProcess } from './worker-process.ts';

/** One dependency the fault tests stop and start again, on the same port and data. */
export interface Restartable {
  stop(): Promise<void>;
  start(): Promise<void>;
}

export interface FaultStack {
  postgres: Restartable;
  temporal: Restartable;
  neo: Restartable;
  databaseUrl: string;
  orm: MikroORM;
  api: ApiProcess;
  neoRpcUrl: string;
  devWallet: DevWallet;
  close(): Promise<void>;
}

/**
 * Neoflow (`neoflow api` hosting its worker, and one `neoflow worker`) over a PostgreSQL, a Temporal
 * dev server and a neo-go node of its own, each kept on disk so that a test can stop it and start it
 * again where it was: the dependencies' faults, with real processes.
 */
export async function startFaultStack(scratch: string): Promise<FaultStack> {
  const config = loadConfig({});
  const [temporalPath, neoGoPath] = await Promise.all([
    ensureGoProgram(temporalCli, config.binDir, () => undefined),
    ensureGoProgram(neoGo, config.binDir, () => undefined),
  ]);
  const [pgPort, temporalPort, neoPort] = [await freePort(), await freePort(), await freePort()];
  await mkdir(join(scratch, 'logs'), { recursive: true });
  const log = (name: string) => join(scratch, 'logs', name);
  const stops: (() => Promise<void>)[] = [];

  const restartable = <T extends { stop(): Promise<void> }>(launch: () => Promise<T>) => {
    let running: T | undefined;
    const handle = {
      first: async () => (running = await launch()),
      stop: async () => {
        await running?.stop();
        running = undefined;
      },
      start: async () => void (running = await launch()),
    };
    stops.push(handle.stop);
    return handle;
  };

  let pgStarts = 0;
  const postgres = restartable(() =>
    startEmbeddedPostgres(join(scratch, 'pg'), pgPort, log(`postgres-${++pgStarts}.log`)),
  );
  let temporalStarts = 0;
  const temporal = restartable(() =>
    startTemporalDev({
      temporalPath,
      port: temporalPort,
      uiPort: undefined,
      uiCodecEndpoint: undefined,
      dbFile: join(scratch, 'temporal.db'),
      logFile: log(`temporal-${++temporalStarts}.log`),
      namespace: 'default',
    }),
  );
  const neo = restartable(() => startNeoDevnet({ neoGoPath, dataDir: join(scratch, 'neo'), rpcPort: neoPort }));
  const close = async () => {
    await Promise.allSettled(stops.reverse().map((stop) => stop()));
  };
  try {
    const [pg, temporalServer, node] = await Promise.all([postgres.first(), temporal.first(), neo.first()]);
    const databaseUrl = pg.url;
    await executeOnce(databaseUrl.replace(/\/neoflow$/, '/postgres'), 'select 1');
    const orm = await openOrm(databaseUrl);
    stops.push(() => orm.close());
    await migrate(orm);
    const env = {
      TEMPORAL_ADDRESS: temporalServer.address,
      NEO_RPC_URL: node.rpcUrl,
      DATABASE_URL: databaseUrl,
      NEOFLOW_DATA_DIR: await withSharedBundleCache(join(scratch, 'data')),
      // The reconciler's sweep is what heals the faults: every few seconds here, not every minute.
      NEOFLOW_RECOVERY_SECONDS: '3',
      // The worker's queue for the API too, which startApiProcess would give the file's (testWorkerEnv).
      NEOFLOW_TASK_QUEUE: config.temporal.taskQueue,
      ...testSecretsEnv,
      ...testEgressEnv,
    };
    const api = await startApiProcess(databaseUrl, env);
    stops.push(() => api.stop());
    const worker: WorkerProcess = await startWorkerProcess(
      databaseUrl,
      config.temporal.taskQueue,
      join(scratch, 'worker-data'),
      log('worker.log'),
      env,
    );
    stops.push(() => worker.stop());
    return {
      postgres,
      temporal,
      neo,
      databaseUrl,
      orm,
      api,
      neoRpcUrl: node.rpcUrl,
      devWallet: node.wallet,
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}

import { randomBytes } from 'node:crypto';
import { chmod, mkdir, mkdtemp, rm } from 'node:fs/promises';
import type { Server } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { MikroORM } from '@mikro-orm/postgresql';
import { createApp } from '../src/api/app.ts';
import { createKey } from '../src/auth/keys.service.ts';
import { createNeoRpc } from '../src/chain/rpc.ts';
import { loadConfig } from '../src/config.ts';
import { migrate, openOrm } from '../src/db/orm.ts';
import { createLogger } from '../src/log.ts';
import { masterKeysOf } from '../src/secrets/master-keys.ts';
import type { Services } from '../src/services.ts';
import { connectTemporal, type TemporalHandle } from '../src/temporal/connect.ts';
import { createWorker } from '../worker/worker.ts';
import { startScratchServices } from '../test/support/scratch-services.ts';
import type { Progress } from './measure.ts';

export interface BenchStack {
  apiUrl: string;
  apiKey: string;
  taskQueue: string;
  orm: MikroORM;
  temporal: TemporalHandle;
  /** Stops the API, the worker, then the services; removes the scratch directory. */
  stop(): Promise<void>;
}

/**
 * The real stack, started like the integration tests start it: embedded PostgreSQL, the Temporal
 * dev server and a neo-go devnet on free ports in a scratch directory, then a migrated database,
 * the API in-process over HTTP and one real worker.
 */
export async function startBenchStack(progress: Progress): Promise<BenchStack> {
  const stops: (() => Promise<void>)[] = [];
  const scratch = await mkdtemp(join(tmpdir(), 'neoflow-bench-'));
  await chmod(scratch, 0o755);
  const stopAll = async () => {
    for (const stop of stops.reverse())
      await stop().catch((error: unknown) => progress(`stop failed: ${String(error)}`));
    stops.length = 0;
    await rm(scratch, { recursive: true, force: true });
  };
  try {
    let began = performance.now();
    const scratchServices = await startScratchServices(scratch, progress);
    stops.push(() => scratchServices.stop());
    const postgres = { url: scratchServices.postgresUrl };
    const temporalServer = { address: scratchServices.temporalAddress };
    const neo = { rpcUrl: scratchServices.neoRpcUrl };
    progress(`services up: postgres, temporal ${temporalServer.address}, neo ${neo.rpcUrl} (${elapsed(began)})`);

    began = performance.now();
    const orm = await openOrm(postgres.url);
    stops.push(() => orm.close());
    await migrate(orm);
    progress(`database migrated (${elapsed(began)})`);

    const taskQueue = `bench-${randomBytes(4).toString('hex')}`;
    const secretsEnv = {
      NEOFLOW_PAYLOAD_KEY: randomBytes(32).toString('base64'),
      NEOFLOW_MASTER_KEY: randomBytes(32).toString('base64'),
      NEOFLOW_OPERATOR_TOKEN: randomBytes(24).toString('hex'),
    };
    const env = {
      DATABASE_URL: postgres.url,
      TEMPORAL_ADDRESS: temporalServer.address,
      NEO_RPC_URL: neo.rpcUrl,
      NEOFLOW_TASK_QUEUE: taskQueue,
      NEOFLOW_LOG_LEVEL: 'warn',
      ...secretsEnv,
    };

    began = performance.now();
    const workerDir = join(scratch, 'worker');
    await mkdir(workerDir, { recursive: true });
    const workerHandle = await createWorker(loadConfig({ ...env, NEOFLOW_DATA_DIR: workerDir }));
    const running = workerHandle.worker.run();
    stops.push(async () => {
      workerHandle.worker.shutdown();
      await running;
      await workerHandle.close();
    });
    progress(`worker polling task queue ${taskQueue} (${elapsed(began)})`);

    began = performance.now();
    const config2 = loadConfig({ ...env, NEOFLOW_DATA_DIR: join(scratch, 'api') });
    const temporal = await connectTemporal({
      address: temporalServer.address,
      namespace: config2.temporal.namespace,
      payloadKey: Buffer.from(secretsEnv.NEOFLOW_PAYLOAD_KEY, 'base64'),
    });
    stops.push(() => temporal.connection.close());
    const services: Services = {
      config: config2,
      log: createLogger('api-bench', 'warn'),
      orm,
      em: () => orm.em,
      temporal,
      neo: createNeoRpc(neo.rpcUrl),
      masterKeys: masterKeysOf(config2),
    };
    const handle = createApp(services).callback();
    const server = createServer((request, response) => void handle(request, response));
    await new Promise<void>((resolveListen) => server.listen(0, '127.0.0.1', resolveListen));
    stops.push(() => closeServer(server));
    const apiUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const { key } = await createKey(orm.em.fork(), services.masterKeys, 'bench', ['*'], {
      rate: { requests: 1_000_000, windowSeconds: 1 },
    });
    progress(`api ${apiUrl}, key created (${elapsed(began)})`);

    return { apiUrl, apiKey: key, taskQueue, orm, temporal, stop: stopAll };
  } catch (error) {
    await stopAll();
    throw error;
  }
}

function elapsed(began: number) {
  return `${((performance.now() - began) / 1000).toFixed(1)} s`;
}

function closeServer(server: Server) {
  return new Promise<void>((resolveClose) => {
    server.close(() => resolveClose());
    server.closeAllConnections();
  });
}

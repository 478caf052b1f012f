import { NativeConnection, Worker } from '@temporalio/worker';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Config } from '../src/config.ts';
import { requireSetting } from '../src/config.ts';
import { createNeoRpc } from '../src/chain/rpc.ts';
import { openOrm } from '../src/db/orm.ts';
import { reachable } from '../src/reachable.ts';
import { masterKeysOf } from '../src/secrets/master-keys.ts';
import { dataConverter } from '../src/temporal/codec.ts';
import { createActivities, defaultWorkerId } from '../activities/index.ts';
import { prebuiltWorkflowBundle } from './bundle.ts';

export interface WorkerHandle {
  worker: Worker;
  /** Closes what the worker opened, once it has stopped. */
  close: () => Promise<void>;
}

/** A worker on the `neoflow` task queue with explicit concurrency limits; not yet running. */
export async function createWorker(config: Config): Promise<WorkerHandle> {
  const address = requireSetting(config.temporal.address, 'TEMPORAL_ADDRESS');
  const payloadKey = requireSetting(config.secrets.payloadKey, 'NEOFLOW_PAYLOAD_KEY');
  const databaseUrl = requireSetting(config.postgres.url, 'DATABASE_URL');
  const neoUrl = requireSetting(config.neo.rpcUrl, 'NEO_RPC_URL');
  const masterKeys = masterKeysOf(config);
  const codePath = await prebuiltWorkflowBundle(`${config.dataDir}/cache`);
  const orm: MikroORM = await reachable('DATABASE_URL', () => openOrm(databaseUrl));
  const connection = await NativeConnection.connect({ address });
  const activities = createActivities({
    workerId: defaultWorkerId(),
    orm,
    masterKeys,
    neo: createNeoRpc(neoUrl),
    memoryLimitMb: config.worker.sandboxMemoryMb,
    automations: config.automations,
  });
  const worker = await Worker.create({
    connection,
    namespace: config.temporal.namespace,
    taskQueue: config.temporal.taskQueue,
    workflowBundle: { codePath },
    dataConverter: dataConverter(payloadKey),
    activities,
    maxConcurrentActivityTaskExecutions: config.worker.maxActivities,
    maxConcurrentWorkflowTaskExecutions: config.worker.maxWorkflowTasks,
    maxConcurrentLocalActivityExecutions: config.worker.maxActivities,
    shutdownGraceTime: '8 seconds',
  });
  return {
    worker,
    close: async () => {
      await connection.close();
      await orm.close();
    },
  };
}

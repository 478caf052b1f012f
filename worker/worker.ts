import { NativeConnection, Worker } from '@temporalio/worker';
import type { Config } from '../src/config.ts';
import { requireSetting } from '../src/config.ts';
import { dataConverter } from '../src/temporal/codec.ts';
import { createActivities, defaultWorkerId } from '../activities/index.ts';
import { prebuiltWorkflowBundle } from './bundle.ts';

/** A worker on the `neoflow` task queue with explicit concurrency limits; not yet running. */
export async function createWorker(config: Config): Promise<{ worker: Worker; connection: NativeConnection }> {
  const address = requireSetting(config.temporal.address, 'TEMPORAL_ADDRESS');
  const payloadKey = requireSetting(config.secrets.payloadKey, 'NEOFLOW_PAYLOAD_KEY');
  const codePath = await prebuiltWorkflowBundle(`${config.dataDir}/cache`);
  const connection = await NativeConnection.connect({ address });
  const worker = await Worker.create({
    connection,
    namespace: config.temporal.namespace,
    taskQueue: config.temporal.taskQueue,
    workflowBundle: { codePath },
    dataConverter: dataConverter(payloadKey),
    activities: createActivities({ workerId: defaultWorkerId() }),
    maxConcurrentActivityTaskExecutions: config.worker.maxActivities,
    maxConcurrentWorkflowTaskExecutions: config.worker.maxWorkflowTasks,
    maxConcurrentLocalActivityExecutions: config.worker.maxActivities,
    shutdownGraceTime: '8 seconds',
  });
  return { worker, connection };
}

import type { Worker } from '@temporalio/worker';
import type { Config } from '../src/config.ts';
import { requireSetting } from '../src/config.ts';
import { openRuntime, type Runtime } from '../src/runtime.ts';
import { dataConverter } from '../src/temporal/codec.ts';
import { createActivities, defaultWorkerId, type ActivityDeps } from '../activities/index.ts';
import { createReconcilerActivities } from '../activities/reconciler.ts';
import { egressPolicy } from '../src/egress/egress-policy.ts';
import { prebuiltWorkflowBundle } from './bundle.ts';
import { UnwatchedWorker } from './unwatched-worker.ts';

export interface WorkerHandle {
  worker: Worker;
  /** Closes what the worker opened, once it has stopped. */
  close: () => Promise<void>;
}

/**
 * `worker`: a worker process, every task of the queue. `api`: the API process's own worker, which
 * takes the first task of the runs the API starts eagerly and runs their code as local activities
 * in process; regular activities (block reads, price checks, relays) stay with the worker processes.
 */
export type WorkerRole = 'worker' | 'api';

/** A worker on the `neoflow` task queue with explicit concurrency limits, over `runtime`; not yet running. */
export async function createWorker(config: Config, runtime: Runtime, role: WorkerRole): Promise<Worker> {
  const payloadKey = requireSetting(config.secrets.payloadKey, 'NEOFLOW_PAYLOAD_KEY');
  const codePath = await prebuiltWorkflowBundle(`${config.dataDir}/cache`);
  const deps: ActivityDeps = {
    workerId: defaultWorkerId(),
    orm: runtime.orm,
    masterKeys: runtime.masterKeys,
    neo: runtime.neo,
    memoryLimitMb: config.worker.sandboxMemoryMb,
    automations: config.automations,
    recovery: config.recovery,
    temporal: runtime.temporal.client,
    taskQueue: config.temporal.taskQueue,
    egress: egressPolicy(config.egress),
    runsPerAccount: config.worker.runsPerAccount,
    runSlots: config.worker.maxWorkflowTasks,
    maxRuns: config.worker.maxRuns,
  };
  const activities = { ...createActivities(deps), ...createReconcilerActivities(deps) };
  return UnwatchedWorker.create({
    connection: runtime.temporal.connection,
    namespace: config.temporal.namespace,
    taskQueue: config.temporal.taskQueue,
    workflowBundle: { codePath },
    dataConverter: dataConverter(payloadKey, config.secrets.previousPayloadKeys),
    activities,
    enableNonLocalActivities: role === 'worker',
    maxConcurrentActivityTaskExecutions: config.worker.maxActivities,
    maxConcurrentWorkflowTaskExecutions: config.worker.maxWorkflowTasks,
    // A function's run is a local activity in its workflow's task: one of each per run in progress.
    maxConcurrentLocalActivityExecutions: config.worker.maxWorkflowTasks,
    shutdownGraceTime: '8 seconds',
  });
}

/** A worker process's worker over a runtime of its own, closed with it. */
export async function openWorker(config: Config): Promise<WorkerHandle> {
  const runtime = await openRuntime(config);
  try {
    return { worker: await createWorker(config, runtime, 'worker'), close: () => runtime.close() };
  } catch (error) {
    await runtime.close();
    throw error;
  }
}

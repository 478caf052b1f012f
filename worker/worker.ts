import type { Worker } from '@temporalio/worker';
import type { Config } from '../src/config.ts';
import { createLogger, type Logger } from '../src/log.ts';
import { closeResources, openResources } from '../src/open-resources.ts';
import type { Resources } from '../src/resources.ts';
import type { LocalRuns } from '../src/functions/local-runs.ts';
import { dataConverter } from '../src/temporal/codec.ts';
import { createActivities, defaultWorkerId, type ActivityDeps } from '../activities/index.ts';
import type { FiredRun } from '../activities/automations.ts';
import { createReconcilerActivities, type ReconcilerControl } from '../src/recovery/reconciler-activities.ts';
import { egressPolicy } from '../src/egress/egress-policy.ts';
import { openReceiptSigner } from '../src/functions/execution-receipt.ts';
import { followerTaskQueue, runsTaskQueue } from '../src/temporal/task-queues.ts';
import { runStartsInFlight } from '../src/shared/run-starts.ts';
import { prebuiltWorkflowBundle } from './bundle.ts';
import { UnwatchedWorker } from './unwatched-worker.ts';

interface WorkerHandle {
  worker: Worker;
  /** The automation runs' worker, on their own task queue. */
  runs: Worker | undefined;
  /** The block follower's worker, on its own task queue. */
  follower: Worker | undefined;
  /** Closes what the workers opened, once they have stopped. */
  close: () => Promise<void>;
}

/**
 * `worker`: a worker process, every task of the queue. `api`: the API process's own worker, which
 * takes the first task of the runs the API starts eagerly and runs their code as local activities
 * in process; regular activities (block reads, price checks, relays) stay with the worker processes,
 * and so do automation runs, on a queue the API does not poll (runsWorker).
 */
type WorkerRole = 'worker' | 'api';

/**
 * A worker on the `neoflow` task queue with explicit concurrency limits, over `resources`; not yet
 * running. The API's is handed the process's state (src/app/main.ts): the ends of runs go over
 * through `localRuns`, as its invokes wait on the same instance, and its reconciler writes
 * Temporal's state through the process's `control`.
 */
export async function createWorker(resources: Resources, role: WorkerRole, shared: SharedState = {}): Promise<Worker> {
  return mainWorker(resources.config, role, await workerBasics(resources, shared));
}

/** What a worker shares with the API of its process, made once there. */
interface SharedState {
  control?: ReconcilerControl;
  localRuns?: LocalRuns;
}

/** What a process's workers share: the activities (one set of isolates, caches) and the connection. */
/** The PKCS#11 module `pkcs11` signers open their keys with, when configured (its PIN then required by config). */
const pkcs11ModuleOf = ({ worker: { pkcs11 } }: Config) =>
  pkcs11.module ? { path: pkcs11.module, pin: pkcs11.pin! } : undefined;

async function workerBasics(
  { config, orm, masterKeys, networks, temporal, payloadKeys }: Resources,
  { control, localRuns }: SharedState = {},
) {
  const codePath = await prebuiltWorkflowBundle(`${config.dataDir}/cache`);
  const deps: ActivityDeps = {
    workerId: defaultWorkerId(),
    orm,
    masterKeys,
    pkcs11: pkcs11ModuleOf(config),
    networks,
    memoryLimitMb: config.worker.sandboxMemoryMb,
    serviceCallsPerRun: config.worker.sandboxServiceCalls,
    automations: config.automations,
    recovery: config.recovery,
    temporal: temporal.client,
    taskQueue: config.temporal.taskQueue,
    egress: egressPolicy(config.egress),
    runsPerAccount: config.worker.runsPerAccount,
    activitiesPerAccount: config.worker.activitiesPerAccount,
    queuedRunsPerAccount: config.quotas.queuedExecutionsPerAccount,
    runSlots: config.worker.maxWorkflowTasks,
    maxRuns: config.worker.maxRuns,
    localRuns,
    receipts: await openReceiptSigner(config),
  };
  const activities = { ...createActivities(deps), ...createReconcilerActivities(deps, control) };
  const options = {
    connection: temporal.connection,
    namespace: config.temporal.namespace,
    workflowBundle: { codePath },
    dataConverter: dataConverter(payloadKeys.current, payloadKeys.previous),
    shutdownGraceTime: '8 seconds',
  };
  return { activities, options, networks: networks.pools.length };
}

type WorkerBasics = Awaited<ReturnType<typeof workerBasics>>;

function mainWorker(config: Config, role: WorkerRole, basics: WorkerBasics) {
  return queueWorker(config, config.temporal.taskQueue, role === 'worker', basics);
}

/**
 * The automation runs' worker, on their own task queue (src/temporal/task-queues.ts): a worker
 * process's only. A run's regular activities (prepares, relays, deliveries) default to its
 * workflow's queue, so it runs them too. It takes the main worker's activities, the same instance:
 * the runs' code shares one set of isolates and one NEOFLOW_WORKER_MAX_RUNS across both queues,
 * and each account its shares of them; Temporal's task slots are each worker's own.
 */
function runsWorker(config: Config, basics: WorkerBasics) {
  return queueWorker(config, runsTaskQueue(config.temporal.taskQueue), true, basics);
}

function queueWorker(config: Config, taskQueue: string, nonLocal: boolean, { activities, options }: WorkerBasics) {
  return UnwatchedWorker.create({
    ...options,
    taskQueue,
    activities,
    enableNonLocalActivities: nonLocal,
    maxConcurrentActivityTaskExecutions: config.worker.maxActivities,
    maxConcurrentWorkflowTaskExecutions: config.worker.maxWorkflowTasks,
    // A function's run is a local activity in its workflow's task: one of each per run in progress.
    maxConcurrentLocalActivityExecutions: config.worker.maxWorkflowTasks,
  });
}

/**
 * The block follower's slots per network: one follower per network, its reads in a row; room for
 * a retried read beside one that hangs. A round waits up to seconds for a block: slots shared by
 * fewer would let one network's rounds hold back another's.
 */
const followerSlotsPerNetwork = 4;

/** The block follower's worker: its own task queue (src/temporal/task-queues.ts), its own slots. */
function followerWorker(config: Config, { activities, options, networks }: WorkerBasics) {
  const followerSlots = followerSlotsPerNetwork * networks;
  return UnwatchedWorker.create({
    ...options,
    taskQueue: followerTaskQueue(config.temporal.taskQueue),
    // A round starts the runs of the round before (workflows/block-follower.ts); startRuns: the
    // starts of a follower that began on the code before, in slots of their own.
    activities: {
      followBlocks: (network: string, toStart?: FiredRun[], actionQueue?: string) =>
        activities.followBlocks(network, toStart, actionQueue),
      startRuns: activities.startRuns,
    },
    maxConcurrentActivityTaskExecutions: followerSlots + runStartsInFlight,
    maxConcurrentWorkflowTaskExecutions: followerSlots,
    maxConcurrentLocalActivityExecutions: followerSlots,
  });
}

/**
 * A worker process's workers over resources of their own, closed with them: the main one and,
 * unless `mainOnly` (a test that drives the main worker alone), the runs' and the block follower's.
 * A worker that is made must be run before the resources close. `log`: the process's (a test's: a
 * new one).
 */
export async function openWorker(
  config: Config,
  { mainOnly = false, log = createLogger('worker', config.logLevel) }: { mainOnly?: boolean; log?: Logger } = {},
): Promise<WorkerHandle> {
  const resources = await openResources(config, log);
  try {
    const basics = await workerBasics(resources);
    const worker = await mainWorker(config, 'worker', basics);
    return {
      worker,
      runs: mainOnly ? undefined : await runsWorker(config, basics),
      follower: mainOnly ? undefined : await followerWorker(config, basics),
      close: () => closeResources(resources),
    };
  } catch (error) {
    await closeResources(resources);
    throw error;
  }
}

/**
 * Runs the workers of a handle until all stop; one that stops (shut down, or failed) stops the
 * other, and a failure is thrown once all have stopped.
 */
export async function runWorkers(handle: WorkerSet): Promise<void> {
  const running = workersOf(handle).map((worker) => worker.run().finally(() => shutdownWorkers(handle)));
  const failed = (await Promise.allSettled(running)).find((ended) => ended.status === 'rejected');
  if (failed) throw failed.reason;
}

/** Asks the running workers of a handle to stop; runWorkers settles once they have. */
export function shutdownWorkers(handle: WorkerSet) {
  for (const worker of workersOf(handle)) if (worker.getState() === 'RUNNING') worker.shutdown();
}

type WorkerSet = Pick<WorkerHandle, 'worker' | 'runs' | 'follower'>;

const workersOf = ({ worker, runs, follower }: WorkerSet) =>
  [worker, runs, follower].filter((made): made is Worker => made !== undefined);

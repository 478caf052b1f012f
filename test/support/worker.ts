import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import proto from '@temporalio/proto';
import { afterAll, beforeAll } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { startTestApi, type TestApi } from './api.ts';
import { withSharedBundleCache } from './bundle-cache.ts';
import { runInProcessWorker } from './in-process-worker.ts';
import { testWorkerEnv } from './temporal.ts';

export interface RunningWorker {
  stop(): Promise<void>;
}

/** A real worker over `databaseUrl`, on `taskQueue`, running until stopped. */
export async function startTestWorker(databaseUrl: string, taskQueue: string, env: Record<string, string> = {}) {
  const dataDir = await withSharedBundleCache(await mkdtemp(join(tmpdir(), 'neoflow-worker-')));
  const worker = await runInProcessWorker(
    loadConfig(testWorkerEnv(databaseUrl, { NEOFLOW_TASK_QUEUE: taskQueue, NEOFLOW_DATA_DIR: dataDir, ...env })),
  );
  return {
    stop: async () => {
      await worker.stop();
      await rm(dataDir, { recursive: true, force: true });
    },
  } satisfies RunningWorker;
}

export interface ApiWithWorkerOptions {
  hostWorker?: boolean;
  /** Variables both processes read, over the tests' defaults. */
  env?: Record<string, string>;
}

/**
 * The API (hosting its own worker, as `neoflow api` does, unless `hostWorker` is false: then every
 * run is taken by the other) and a worker process's worker, on a task queue of their own, so no
 * other test file's worker runs our work.
 */
export async function startApiWithWorker({ hostWorker = true, env = {} }: ApiWithWorkerOptions = {}) {
  const taskQueue = `test-${randomBytes(4).toString('hex')}`;
  const api = await startTestApi([], { ...env, NEOFLOW_TASK_QUEUE: taskQueue }, { hostWorker });
  return { api, worker: await startTestWorker(api.database.url, taskQueue, env), taskQueue };
}

/**
 * The API and its worker for the tests of one file: started before them, stopped after. The
 * handle's fields are set once the file's `beforeAll` hooks have run.
 */
export function apiWithWorkerForThisFile(options: ApiWithWorkerOptions = {}) {
  const running = {} as { api: TestApi; worker: RunningWorker; taskQueue: string };
  beforeAll(async () => {
    Object.assign(running, await startApiWithWorker(options));
  });
  afterAll(async () => {
    await running.worker.stop();
    await running.api.close();
  });
  return running;
}

/** Everything Temporal keeps of a workflow, its events as stored (payloads still encoded). */
export async function rawHistory(
  api: TestApi,
  workflowId: string,
): Promise<proto.temporal.api.history.v1.IHistoryEvent[]> {
  const { history } = await api.services.temporal.client.workflowService.getWorkflowExecutionHistory({
    namespace: 'default',
    execution: { workflowId },
  });
  return history?.events ?? [];
}

/** Everything Temporal keeps of a workflow, as the bytes it stores. */
export async function rawHistoryBytes(api: TestApi, workflowId: string): Promise<Buffer> {
  const events = await rawHistory(api, workflowId);
  return Buffer.from(proto.temporal.api.history.v1.History.encode({ events }).finish());
}

import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import proto from '@temporalio/proto';
import { afterAll, beforeAll, expect } from 'vitest';
import type { ManagedProcess } from '../../src/stack/process.ts';
import { startTestApi, type TestApi } from './api.ts';
import { startApiProcess, type ApiProcess } from './api-process.ts';
import { createTestDatabase, type TestDatabase } from './database.ts';
import { testApi, type ApiCall, type Envelope } from './http.ts';
import { issueKey } from './keys.ts';
import { until } from './polling.ts';
import { startTestWorker } from './worker.ts';
import { startWorkerProcess, type WorkerProcess } from './worker-process.ts';

interface KillStack<Victim extends { process: ManagedProcess }> {
  taskQueue: string;
  database: TestDatabase;
  /** A key of the account the test works as. */
  key: string;
  /** Calls of that account to the API that is up: the last one started, where the API is the victim. */
  call: ApiCall;
  /** The victim's processes in the order started: the first before the tests. */
  processes: Victim[];
  /** One more process of the victim's kind, on the same database, task queue and data. */
  start(): Promise<Victim>;
  /** `kill -9` of `victim`, once it has died of it. */
  kill(victim: Victim): Promise<void>;
  /** The id of a new Node function of the account, made from `fn`. */
  deploy(fn: { name: string; timeout: number; code: string }): Promise<string>;
}

/**
 * A function whose runs stay in their code for 300 ms and answer their parameter `n`: long enough
 * that many are in flight at a kill (the sandbox has no timers).
 */
export const busyFunction = {
  timeout: 30,
  code:
    'module.exports = async (context) => { const end = Date.now() + 300; ' +
    'while (Date.now() < end) { await null; } return context.params.n; };',
};

/** `neoflow api` killed: its runs started eagerly run in its own worker, with a worker of the test beside it. */
export type ApiKillStack = KillStack<ApiProcess>;

/** `neoflow worker` killed: the only worker, behind an API of the test that hosts none. */
export interface WorkerKillStack extends KillStack<WorkerProcess> {
  api: TestApi;
  /**
   * The id of an asynchronous invoke of the function, once the worker has started its workflow task
   * (within 30 s) and a second more: the code, a local activity inside that task, is surely running,
   * and the execution has not ended.
   */
  invokedInWorker(functionId: string): Promise<string>;
  /** The execution's body once it is no longer running, or the last read when `timeoutMs` is up. */
  ended(functionId: string, executionId: string, timeoutMs: number): Promise<Envelope>;
  /** Every worker's log, to tell why an execution did not end as it should. */
  logs(): Promise<string>;
}

const taskStarted = proto.temporal.api.enums.v1.PendingWorkflowTaskState.PENDING_WORKFLOW_TASK_STATE_STARTED;

/**
 * The stack of one file's process-kill test: Neoflow's processes on a task queue of their own, over
 * the shared services (a dependency's fault wants services of its own: `startFaultStack`), started
 * before the file's tests and stopped after them. The handle's fields are set once the file's
 * `beforeAll` hooks have run.
 */
export function killStackForThisFile(label: string, victim: 'api'): ApiKillStack;
export function killStackForThisFile(label: string, victim: 'worker'): WorkerKillStack;
export function killStackForThisFile(label: string, victim: 'api' | 'worker') {
  const taskQueue = `fault-${label}-${randomBytes(4).toString('hex')}`;
  const stops: (() => Promise<unknown>)[] = [];
  let launch: () => Promise<ApiProcess | WorkerProcess>;
  const stack = {
    taskQueue,
    processes: [] as (ApiProcess | WorkerProcess)[],
    call: (...args) => testApi(apiUrl(), stack.key)(...args),
    async start() {
      const started = await launch();
      stack.processes.push(started);
      return started;
    },
    async kill({ process }) {
      process.child.kill('SIGKILL');
      expect(await process.exited).toBe('SIGKILL');
    },
    async deploy(fn) {
      const created = await stack.call('POST', '/functions', { ...fn, runtime: 'node18' });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      return created.body.data.id as string;
    },
    async invokedInWorker(functionId) {
      const invoked = await stack.call('POST', `/functions/${functionId}/invoke`, { async: true });
      expect(invoked.status, JSON.stringify(invoked.body)).toBe(202);
      const executionId = invoked.body.data.execution.id as string;
      const handle = stack.api!.services.temporal.client.workflow.getHandle(executionId);
      const deadline = Date.now() + 30_000;
      while ((await handle.describe()).raw.pendingWorkflowTask?.state !== taskStarted) {
        if (Date.now() > deadline) throw new Error(`the workflow task of ${executionId} did not start within 30 s`);
        await sleep(100);
      }
      await sleep(1000);
      const beforeKill = await stack.call('GET', `/functions/${functionId}/executions/${executionId}`);
      expect(beforeKill.body.data?.status, 'the execution had already ended before the kill').toBe('running');
      return executionId;
    },
    ended: (functionId, executionId, timeoutMs) =>
      until(
        async () => (await stack.call('GET', `/functions/${functionId}/executions/${executionId}`)).body,
        (body) => !!body.data && body.data.status !== 'running',
        timeoutMs,
      ),
    async logs() {
      const workers = stack.processes as WorkerProcess[];
      const logs = await Promise.all(workers.map(({ logFile }) => readFile(logFile, 'utf8').catch(() => '')));
      return logs.join('\n---\n');
    },
  } as KillStack<ApiProcess | WorkerProcess> & Partial<Omit<WorkerKillStack, keyof KillStack<WorkerProcess>>>;
  const apiUrl = () => (victim === 'api' ? (stack.processes.at(-1) as ApiProcess).url : stack.api!.url);

  beforeAll(async () => {
    if (victim === 'api') {
      stack.database = await createTestDatabase();
      stops.push(() => stack.database.drop());
      const worker = await startTestWorker(stack.database.url, taskQueue);
      stops.push(() => worker.stop());
      // The recovery sweep runs every 2 s: a row older than that without a workflow is started by it.
      const env = { NEOFLOW_TASK_QUEUE: taskQueue, NEOFLOW_RECOVERY_SECONDS: '2' };
      launch = () => startApiProcess(stack.database.url, env);
    } else {
      const scratch = await mkdtemp(join(tmpdir(), `neoflow-fault-${label}-`));
      stops.push(() => rm(scratch, { recursive: true, force: true }));
      const api = (stack.api = await startTestApi([], { NEOFLOW_TASK_QUEUE: taskQueue }));
      stops.push(() => api.close());
      stack.database = api.database;
      const logFile = () => join(scratch, `worker-${stack.processes.length + 1}.log`);
      launch = () => startWorkerProcess(stack.database.url, taskQueue, join(scratch, 'data'), logFile());
    }
    stops.push(() => Promise.allSettled(stack.processes.map((process) => process.stop())));
    ({ key: stack.key } = await issueKey(stack.database.orm));
    await stack.start();
  }, 240_000);
  afterAll(async () => {
    for (const stop of stops.reverse()) await stop();
  });
  return stack;
}

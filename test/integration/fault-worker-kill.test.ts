import { setTimeout as sleep } from 'node:timers/promises';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import proto from '@temporalio/proto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../support/api.ts';
import { executionRows } from '../support/execution-rows.ts';
import { callApi, type Envelope } from '../support/http.ts';
import { issueKey } from '../support/keys.ts';
import { startWorkerProcess, type WorkerProcess } from '../support/worker-process.ts';

const STARTED = proto.temporal.api.enums.v1.PendingWorkflowTaskState.PENDING_WORKFLOW_TASK_STATE_STARTED;
const functionTimeoutS = 10;

let api: TestApi;
let key: string;
let scratch: string;
let taskQueue: string;
const workers: WorkerProcess[] = [];

beforeAll(async () => {
  taskQueue = `fault-kill-${randomBytes(4).toString('hex')}`;
  scratch = await mkdtemp(join(tmpdir(), 'neoflow-fault-kill-'));
  api = await startTestApi([], { NEOFLOW_TASK_QUEUE: taskQueue });
  ({ key } = await issueKey(api.database.orm));
  workers.push(
    await startWorkerProcess(api.database.url, taskQueue, join(scratch, 'data'), join(scratch, 'worker-1.log')),
  );
});
afterAll(async () => {
  await Promise.allSettled(workers.map((worker) => worker.stop()));
  await api?.close();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

const call = (method: string, path: string, body?: unknown) => callApi(api.url, key, method, path, body);

describe('fault: kill -9 of the worker during a running execution', () => {
  it('completes the execution once, with its result, when a new worker takes it over', async () => {
    const created = await call('POST', '/functions', {
      name: 'slow-3s',
      runtime: 'node18',
      timeout: functionTimeoutS,
      code: "module.exports = async () => { const end = Date.now() + 3000; while (Date.now() < end) { await null; } return 'done'; };",
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const functionId = created.body.data!.id as string;

    const invokedAt = performance.now();
    const invoked = await call('POST', `/functions/${functionId}/invoke`, { async: true });
    expect(invoked.status, JSON.stringify(invoked.body)).toBe(202);
    const executionId = invoked.body.data!.execution.id as string;

    // Surely running in the worker: Temporal shows its workflow task started (the code runs as a
    // local activity inside it), then a little more.
    const handle = api.services.temporal.client.workflow.getHandle(executionId);
    const startDeadline = Date.now() + 30_000;
    for (;;) {
      const { raw } = await handle.describe();
      if (raw.pendingWorkflowTask?.state === STARTED) break;
      if (Date.now() > startDeadline) throw new Error(`the workflow task of ${executionId} did not start within 30 s`);
      await sleep(100);
    }
    // The task has started; give the local activity a moment to be inside the code (killing
    // before it proves less, but the outcome must be the same).
    await sleep(1000);
    const beforeKill = await call('GET', `/functions/${functionId}/executions/${executionId}`);
    expect(beforeKill.body.data?.status, 'the execution had already ended before the kill').toBe('running');

    const killedAt = performance.now();
    workers[0]!.process.child.kill('SIGKILL');
    expect(await workers[0]!.process.exited).toBe('SIGKILL');
    workers.push(
      await startWorkerProcess(api.database.url, taskQueue, join(scratch, 'data'), join(scratch, 'worker-2.log')),
    );

    const limitMs = (functionTimeoutS + 60) * 1000;
    let details: Envelope = { success: false };
    while (performance.now() - invokedAt < limitMs) {
      details = (await call('GET', `/functions/${functionId}/executions/${executionId}`)).body;
      if (details.data && details.data.status !== 'running') break;
      await sleep(250);
    }
    const endedAt = performance.now();
    const seconds = (from: number) => ((endedAt - from) / 1000).toFixed(1);
    console.log(
      `[fault-worker-kill] execution ${executionId} ended "${String(details.data?.status)}" ` +
        `${seconds(invokedAt)} s after the invocation, ${seconds(killedAt)} s after kill -9`,
    );
    if (!details.data || details.data.status === 'running') {
      const logs = await Promise.all(workers.map((worker) => readFile(worker.logFile, 'utf8').catch(() => '')));
      throw new Error(
        `execution ${executionId} still ${String(details.data?.status)} ${seconds(invokedAt)} s after the invocation ` +
          `(limit ${limitMs / 1000} s)\n--- worker logs ---\n${logs.join('\n---\n')}`,
      );
    }
    // The new worker runs the workflow task again, and with it the code: the run completes, once.
    expect(details.data).toMatchObject({ id: executionId, status: 'completed', result: 'done' });
    const rows = await executionRows(api.database, functionId);
    expect(rows).toEqual([expect.objectContaining({ id: executionId, status: 'completed', results: 1 })]);
  }, 180_000);
});

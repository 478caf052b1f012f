import { setTimeout as sleep } from 'node:timers/promises';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import proto from '@temporalio/proto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../support/api.ts';
import { callApi, type Envelope } from '../support/http.ts';
import { issueKey } from '../support/keys.ts';
import { startWorkerProcess, type WorkerProcess } from '../support/worker-process.ts';

const STARTED = proto.temporal.api.enums.v1.PendingWorkflowTaskState.PENDING_WORKFLOW_TASK_STATE_STARTED;

let api: TestApi;
let key: string;
let scratch: string;
let taskQueue: string;
const workers: WorkerProcess[] = [];

beforeAll(async () => {
  taskQueue = `fault-storage-${randomBytes(4).toString('hex')}`;
  scratch = await mkdtemp(join(tmpdir(), 'neoflow-fault-storage-'));
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

describe('fault: kill -9 of the worker during a run that wrote to its storage', () => {
  it('applies the write exactly once, with the run the new worker completes', async () => {
    // Sets n, then stays in the code for 3 s: the kill lands after the set, before the commit.
    const created = await call('POST', '/functions', {
      name: 'storage-kill',
      runtime: 'node18',
      timeout: 10,
      code: `module.exports = async ({ storage }) => {
        const { value = 0 } = await storage.getEntry('n');
        await storage.set('n', value + 1);
        const end = Date.now() + 3000; while (Date.now() < end) { await null; }
        return value + 1;
      };`,
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const functionId = created.body.data!.id as string;
    const invoked = await call('POST', `/functions/${functionId}/invoke`, { async: true });
    expect(invoked.status, JSON.stringify(invoked.body)).toBe(202);
    const executionId = invoked.body.data!.execution.id as string;

    const handle = api.services.temporal.client.workflow.getHandle(executionId);
    const startDeadline = Date.now() + 30_000;
    while ((await handle.describe()).raw.pendingWorkflowTask?.state !== STARTED) {
      if (Date.now() > startDeadline) throw new Error(`the workflow task of ${executionId} did not start within 30 s`);
      await sleep(100);
    }
    // Inside the code's 3 s, past its set.
    await sleep(1000);
    const beforeKill = await call('GET', `/functions/${functionId}/executions/${executionId}`);
    expect(beforeKill.body.data?.status, 'the execution had already ended before the kill').toBe('running');
    expect((await call('GET', `/functions/${functionId}/storage/n`)).status).toBe(404);

    workers[0]!.process.child.kill('SIGKILL');
    expect(await workers[0]!.process.exited).toBe('SIGKILL');
    workers.push(
      await startWorkerProcess(api.database.url, taskQueue, join(scratch, 'data'), join(scratch, 'worker-2.log')),
    );

    let details: Envelope = { success: false };
    const deadline = Date.now() + 90_000;
    while (Date.now() < deadline) {
      details = (await call('GET', `/functions/${functionId}/executions/${executionId}`)).body;
      if (details.data && details.data.status !== 'running') break;
      await sleep(250);
    }
    if (details.data?.status !== 'completed') {
      const logs = await Promise.all(workers.map((worker) => readFile(worker.logFile, 'utf8').catch(() => '')));
      throw new Error(`execution ${executionId} ended ${JSON.stringify(details.data)}\n${logs.join('\n---\n')}`);
    }
    expect(details.data).toMatchObject({ result: 1, storage: { read: ['n'], written: ['n'] } });
    // One write, applied once: version 1.
    const stored = await call('GET', `/functions/${functionId}/storage/n`);
    expect(stored.body.data).toMatchObject({ key: 'n', value: 1, version: 1 });
  }, 180_000);
});

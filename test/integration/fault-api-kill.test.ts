import { setTimeout as sleep } from 'node:timers/promises';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApiProcess, type ApiProcess } from '../support/api-process.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { executionRows } from '../support/execution-rows.ts';
import { callApi } from '../support/http.ts';
import { issueKey } from '../support/keys.ts';
import { startTestWorker, type RunningWorker } from '../support/worker.ts';

const invocations = 48;
const concurrency = 16;
/** Answers seen before the kill: the burst is well under way, and most runs are not yet done. */
const answersBeforeKill = 8;

let db: TestDatabase;
let worker: RunningWorker;
let key: string;
let taskQueue: string;
const apis: ApiProcess[] = [];

beforeAll(async () => {
  taskQueue = `fault-api-kill-${randomBytes(4).toString('hex')}`;
  db = await createTestDatabase();
  ({ key } = await issueKey(db.orm));
  worker = await startTestWorker(db.url, taskQueue);
});
afterAll(async () => {
  await Promise.allSettled(apis.map((api) => api.stop()));
  await worker?.stop();
  await db?.drop();
});

describe('fault: kill -9 of the API during a burst of synchronous invokes', () => {
  it('ends every execution completed or failed with a clear error, each with exactly one outcome', async () => {
    // Runs started eagerly execute in the API's own worker; the recovery sweep runs every 2 s here.
    const env = { NEOFLOW_TASK_QUEUE: taskQueue, NEOFLOW_RECOVERY_SECONDS: '2' };
    const api = await startApiProcess(db.url, env);
    apis.push(api);
    const call = (method: string, path: string, body?: unknown) => callApi(api.url, key, method, path, body);
    const created = await call('POST', '/functions', {
      name: 'burst',
      runtime: 'node18',
      timeout: 30,
      // Long enough that many runs are in flight at the kill (the sandbox has no timers).
      code:
        'module.exports = async (context) => { const end = Date.now() + 300; ' +
        'while (Date.now() < end) { await null; } return context.params.n; };',
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const functionId = created.body.data.id as string;

    let answered = 0;
    let next = 0;
    const reachedKillPoint = Promise.withResolvers<void>();
    const lane = async () => {
      while (next < invocations) {
        const n = next++;
        const response = await call('POST', `/functions/${functionId}/invoke`, { params: { n } }).catch(() => null);
        if (response?.status === 200 && ++answered === answersBeforeKill) reachedKillPoint.resolve();
      }
    };
    const burst = Promise.all(Array.from({ length: concurrency }, lane));
    await reachedKillPoint.promise;
    api.process.child.kill('SIGKILL');
    expect(await api.process.exited).toBe('SIGKILL');
    await burst;

    const deadline = Date.now() + 120_000;
    let rows = await executionRows(db, functionId);
    while (rows.some((row) => row.status === 'running') && Date.now() < deadline) {
      await sleep(250);
      rows = await executionRows(db, functionId);
    }
    const running = rows.filter((row) => row.status === 'running').length;
    console.log(
      `[fault-api-kill] ${answered} answered before and around the kill; ${rows.length} executions recorded, ` +
        `${running} still running`,
    );
    expect(rows.length).toBeGreaterThan(answered);
    expect(running, 'executions still running').toBe(0);
    for (const row of rows) {
      if (row.status === 'completed') expect(row.results, `results of ${row.id}`).toBe(1);
      else {
        expect(row.status).toBe('failed');
        expect(row.results).toBe(0);
        expect(row.error?.message, `error of ${row.id}`).toMatch(/\w{4,}/);
      }
    }
  }, 240_000);
});

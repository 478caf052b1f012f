import { setTimeout as sleep } from 'node:timers/promises';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApiProcess, type ApiProcess } from '../support/api-process.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { executionRows } from '../support/execution-rows.ts';
import { callApi } from '../support/http.ts';
import { issueKey } from '../support/keys.ts';
import { startTestWorker, type RunningWorker } from '../support/worker.ts';

const invocations = 40;
const concurrency = 8;
/** Accepted before the kill is aimed: the burst is well under way. */
const acceptedBeforeKill = 12;

let db: TestDatabase;
let worker: RunningWorker;
let key: string;
let taskQueue: string;
const apis: ApiProcess[] = [];

beforeAll(async () => {
  taskQueue = `fault-api-${randomBytes(4).toString('hex')}`;
  db = await createTestDatabase();
  ({ key } = await issueKey(db.orm));
  worker = await startTestWorker(db.url, taskQueue);
});
afterAll(async () => {
  await Promise.allSettled(apis.map((api) => api.stop()));
  await worker?.stop();
  await db?.drop();
});

// The recovery sweep runs every 2 s: a row older than that without a workflow is started by it.
const env = () => ({ NEOFLOW_TASK_QUEUE: taskQueue, NEOFLOW_RECOVERY_SECONDS: '2' });

describe('fault: kill -9 of the API during asynchronous invokes, then a new API', () => {
  it(`runs every recorded execution once to its own result, those accepted and those cut off alike`, async () => {
    const first = await startApiProcess(db.url, env());
    apis.push(first);
    const call = (api: ApiProcess, method: string, path: string, body?: unknown) =>
      callApi(api.url, key, method, path, body);
    const created = await call(first, 'POST', '/functions', {
      name: 'restart-survivor',
      runtime: 'node18',
      timeout: 30,
      // Long enough that many runs are still going at the kill (the sandbox has no timers).
      code:
        'module.exports = async (context) => { const end = Date.now() + 300; ' +
        'while (Date.now() < end) { await null; } return context.params.n; };',
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const functionId = created.body.data.id as string;

    const accepted: string[] = [];
    let next = 0;
    const reachedKillPoint = Promise.withResolvers<void>();
    const lane = async () => {
      while (next < invocations) {
        const n = next++;
        const body = { async: true, params: { n } };
        const response = await call(first, 'POST', `/functions/${functionId}/invoke`, body).catch(() => null);
        if (response?.status !== 202) continue;
        accepted.push(response.body.data.execution.id as string);
        if (accepted.length === acceptedBeforeKill) reachedKillPoint.resolve();
      }
    };
    let ended = false;
    const burst = Promise.all(Array.from({ length: concurrency }, lane)).finally(() => (ended = true));
    await reachedKillPoint.promise;
    // The kill lands while a request is past its row and not yet answered (recorded > accepted).
    while (!ended && (await executionRows(db, functionId)).length <= accepted.length);
    first.process.child.kill('SIGKILL');
    expect(await first.process.exited).toBe('SIGKILL');
    await burst;

    const atKill = await executionRows(db, functionId);
    expect(atKill.length, 'executions recorded but not answered at the kill').toBeGreaterThan(accepted.length);

    apis.push(await startApiProcess(db.url, env()));
    const deadline = Date.now() + 120_000;
    let rows = await executionRows(db, functionId);
    while (rows.some((row) => row.status === 'running') && Date.now() < deadline) {
      await sleep(250);
      rows = await executionRows(db, functionId);
    }
    console.log(
      `[fault-api-restart] ${accepted.length} accepted, ${atKill.length} recorded at the kill, ` +
        `${rows.filter((row) => row.status === 'completed').length} completed in the end`,
    );
    expect(rows.length).toBe(atKill.length);
    expect(rows.map((row) => row.id)).toEqual(expect.arrayContaining(accepted));
    for (const row of rows) {
      expect(row, `execution ${row.id}`).toMatchObject({ status: 'completed', results: 1 });
    }
    for (const row of rows) {
      const details = await callApi(apis.at(-1)!.url, key, 'GET', `/functions/${functionId}/executions/${row.id}`);
      expect(details.body.data, `execution ${row.id}`).toMatchObject({ status: 'completed', result: row.params.n });
    }
  }, 240_000);
});

import { setTimeout as sleep } from 'node:timers/promises';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApiProcess, type ApiProcess } from '../support/api-process.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { callApi } from '../support/http.ts';
import { issueKey } from '../support/keys.ts';
import { startTestWorker, type RunningWorker } from '../support/worker.ts';

const invocations = 20;

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

const call = (api: ApiProcess, method: string, path: string, body?: unknown) =>
  callApi(api.url, key, method, path, body);

describe('fault: an API restart during asynchronous executions', () => {
  it(`loses none of ${invocations} async invocations when the API process is stopped right after them`, async () => {
    const first = await startApiProcess(db.url, { NEOFLOW_TASK_QUEUE: taskQueue });
    apis.push(first);
    const created = await call(first, 'POST', '/functions', {
      name: 'restart-survivor',
      runtime: 'node18',
      // Twenty busy runs share two cores: a wide margin, so no run meets its timeout.
      timeout: 30,
      // Long enough that most runs are still going while the API is down.
      // (the sandbox has no timers: a busy wait that yields).
      code:
        'module.exports = async (context) => { const end = Date.now() + 500; ' +
        'while (Date.now() < end) { await null; } return context.params.n; };',
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const functionId = created.body.data.id as string;

    const startedAt = performance.now();
    const invoked = await Promise.all(
      Array.from({ length: invocations }, (_, n) =>
        call(first, 'POST', `/functions/${functionId}/invoke`, { async: true, params: { n } }),
      ),
    );
    for (const response of invoked) expect(response.status, JSON.stringify(response.body)).toBe(202);
    const ids = invoked.map((response) => response.body.data.execution.id as string);
    expect(new Set(ids).size).toBe(invocations);

    await first.stop();
    const stoppedAt = performance.now();
    const atStop = await db.orm.em
      .fork()
      .getConnection()
      .execute<{ running: number }[]>(
        `select count(*)::int as running from executions where function_id = ? and status = 'running'`,
        [functionId],
      );
    const runningAtStop = atStop[0]?.running;
    const second = await startApiProcess(db.url, { NEOFLOW_TASK_QUEUE: taskQueue });
    apis.push(second);

    let executions: { id: string; status: string }[];
    let runningAtRestart: number | undefined;
    const deadline = Date.now() + 90_000;
    for (;;) {
      const listed = await call(second, 'GET', `/functions/${functionId}/executions?limit=100`);
      expect(listed.status, JSON.stringify(listed.body)).toBe(200);
      executions = listed.body.data as { id: string; status: string }[];
      runningAtRestart ??= executions.filter((execution) => execution.status === 'running').length;
      if (executions.length >= invocations && executions.every((execution) => execution.status !== 'running')) break;
      if (Date.now() > deadline) break;
      await sleep(250);
    }
    const doneAt = performance.now();
    const byStatus = Object.groupBy(executions, (execution) => execution.status);
    const summary = Object.entries(byStatus).map(([status, list]) => `${status}=${list?.length ?? 0}`);
    console.log(
      `[fault-api-restart] ${executions.length}/${invocations} executions listed (${summary.join(', ')}): ` +
        `${runningAtStop} running when the first API had stopped, ${runningAtRestart} when the new one answered; ` +
        `API stopped ${((stoppedAt - startedAt) / 1000).toFixed(1)} s after the first invocation, ` +
        `all settled ${((doneAt - startedAt) / 1000).toFixed(1)} s after it`,
    );
    expect(executions.map((execution) => execution.id).sort(), 'executions listed by the new API').toEqual(
      [...ids].sort(),
    );
    const notCompleted = await Promise.all(
      executions
        .filter((execution) => execution.status !== 'completed')
        .map(async (execution) => {
          const details = await call(second, 'GET', `/functions/${functionId}/executions/${execution.id}`);
          return { id: execution.id, status: execution.status, error: details.body.data?.error };
        }),
    );
    expect(notCompleted, 'executions that did not complete').toEqual([]);

    // Each one ran to its own result.
    for (const [n, id] of ids.entries()) {
      const details = await call(second, 'GET', `/functions/${functionId}/executions/${id}`);
      expect(details.body.data, `execution ${id}`).toMatchObject({ id, status: 'completed', result: n });
    }
  }, 180_000);
});

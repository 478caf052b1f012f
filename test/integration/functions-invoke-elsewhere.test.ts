import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../support/api.ts';
import { callApi } from '../support/http.ts';
import { issueKey } from '../support/keys.ts';
import { startTestWorker, type RunningWorker } from '../support/worker.ts';

let api: TestApi;
let worker: RunningWorker;
let key: string;
beforeAll(async () => {
  // An API with no worker of its own: every run is taken by a worker elsewhere.
  const taskQueue = `elsewhere-${Date.now()}`;
  api = await startTestApi([], { NEOFLOW_TASK_QUEUE: taskQueue });
  worker = await startTestWorker(api.database.url, taskQueue);
  ({ key } = await issueKey(api.database.orm));
});
afterAll(async () => {
  await worker.stop();
  await api.close();
});

describe('a synchronous invoke run by a worker of another process', () => {
  it('answers the result once the workflow reports the run ended', async () => {
    const created = await callApi(api.url, key, 'POST', '/functions', {
      name: 'elsewhere',
      runtime: 'node18',
      code: 'module.exports = async (context) => { const end = Date.now() + 200; while (Date.now() < end) {} return context.params.x + 1; };',
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const invoked = await callApi(api.url, key, 'POST', `/functions/${created.body.data.id}/invoke`, {
      params: { x: 41 },
    });
    expect(invoked.status, JSON.stringify(invoked.body)).toBe(200);
    expect(invoked.body.data).toMatchObject({ execution: { status: 'completed' }, result: 42 });
  });
});

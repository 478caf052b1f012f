import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApi } from '../support/api.ts';
import { callApi } from '../support/http.ts';
import { issueKey } from '../support/keys.ts';
import { startApiWithWorker, type RunningWorker } from '../support/worker.ts';

let api: TestApi;
let worker: RunningWorker;
let key: string;
beforeAll(async () => {
  ({ api, worker } = await startApiWithWorker());
  ({ key } = await issueKey(api.database.orm));
});
afterAll(async () => {
  await worker.stop();
  await api.close();
});

describe('a long run', () => {
  // The code runs as a local activity inside the workflow task, whose timeout is 10 s: the task
  // must be kept alive for the whole run. Atomics.wait blocks the run without using a core.
  it('completes a function with a 300 s timeout that runs for 60 s', async () => {
    const created = await callApi(api.url, key, 'POST', '/functions', {
      name: 'sixty-seconds',
      runtime: 'node18',
      timeout: 300,
      code:
        'module.exports = async () => { const began = Date.now(); ' +
        'Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 60000); return Date.now() - began; };',
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const invoked = await callApi(api.url, key, 'POST', `/functions/${created.body.data.id}/invoke`, {});
    expect(invoked.status, JSON.stringify(invoked.body)).toBe(200);
    expect(invoked.body.data.execution.status).toBe('completed');
    expect(invoked.body.data.result).toBeGreaterThanOrEqual(60_000);
  }, 180_000);
});

import { beforeAll, describe, expect, it } from 'vitest';
import { testApi, type ApiCall } from '../support/http.ts';
import { issueKey } from '../support/keys.ts';
import { apiWithWorkerForThisFile } from '../support/worker.ts';

const running = apiWithWorkerForThisFile();
let call: ApiCall;
beforeAll(async () => {
  call = testApi(running.api.url, (await issueKey(running.api.database.orm)).key);
});

describe('a long run', () => {
  // The code runs as a local activity inside the workflow task, whose timeout is 10 s: the task
  // must be kept alive for the whole run. Atomics.wait blocks the run without using a core.
  it('completes a function with a 300 s timeout that runs for 60 s', async () => {
    const created = await call('POST', '/functions', {
      name: 'sixty-seconds',
      runtime: 'node18',
      timeout: 300,
      code:
        'module.exports = async () => { const began = Date.now(); ' +
        'Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 60000); return Date.now() - began; };',
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const invoked = await call('POST', `/functions/${created.body.data.id}/invoke`, {});
    expect(invoked.status, JSON.stringify(invoked.body)).toBe(200);
    expect(invoked.body.data.execution.status).toBe('completed');
    expect(invoked.body.data.result).toBeGreaterThanOrEqual(60_000);
  }, 180_000);
});

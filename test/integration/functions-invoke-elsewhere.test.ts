import { beforeAll, describe, expect, it } from 'vitest';
import { callApi } from '../support/http.ts';
import { issueKey } from '../support/keys.ts';
import { apiWithWorkerForThisFile } from '../support/worker.ts';

// An API with no worker of its own: every run is taken by a worker elsewhere.
const running = apiWithWorkerForThisFile({ hostWorker: false });
let key: string;
beforeAll(async () => {
  ({ key } = await issueKey(running.api.database.orm));
});

describe('a synchronous invoke run by a worker of another process', () => {
  it('answers the result once the workflow reports the run ended', async () => {
    const created = await callApi(running.api.url, key, 'POST', '/functions', {
      name: 'elsewhere',
      runtime: 'node18',
      code: 'module.exports = async (context) => { const end = Date.now() + 200; while (Date.now() < end) {} return context.params.x + 1; };',
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const invoked = await callApi(running.api.url, key, 'POST', `/functions/${created.body.data.id}/invoke`, {
      params: { x: 41 },
    });
    expect(invoked.status, JSON.stringify(invoked.body)).toBe(200);
    expect(invoked.body.data).toMatchObject({ execution: { status: 'completed' }, result: 42 });
  });
});

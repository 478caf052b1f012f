import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runsTaskQueue } from '../../src/temporal/task-queues.ts';
import { startTestApi, type TestApi } from '../support/api.ts';
import { automationsClient, settled } from '../support/automations.ts';
import { issueKey } from '../support/keys.ts';
import { until } from '../support/polling.ts';
import { startTestWorker, type RunningWorker } from '../support/worker.ts';

// Where a hook's run runs (issue 49): on the runs' task queue, which worker processes poll and the
// API's own worker does not, so a flood's let-through runs never run their code in the API process.
const taskQueue = `test-${randomBytes(4).toString('hex')}`;
let api: TestApi;
let worker: RunningWorker | undefined;
beforeAll(async () => {
  // The API hosts its worker, as `neoflow api` does; no worker process yet.
  api = await startTestApi([], { NEOFLOW_TASK_QUEUE: taskQueue }, { hostWorker: true });
});
afterAll(async () => {
  await worker?.stop();
  await api.close();
});

describe("a hook's run", () => {
  it("is queued on the runs' task queue, untaken by the API's worker while it serves invokes, and run once a worker process polls", async () => {
    const client = automationsClient(api.url, (await issueKey(api.database.orm)).key);
    const functionId = await client.deploy('module.exports = async () => 1;');
    const created = await client.call('POST', '/automations', {
      name: 'hook',
      trigger: { type: 'webhook', auth: { type: 'token' } },
      action: { type: 'function', functionId },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const delivered = await fetch(`${api.url}${created.body.trigger.url}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${created.body.trigger.token}`, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(delivered.status).toBe(202);
    const runId = ((await delivered.json()) as { run: { id: string } }).run.id;
    const run = api.services.temporal.client.workflow.getHandle(runId);
    expect((await run.describe()).taskQueue).toBe(runsTaskQueue(taskQueue));

    // An invoke answered after the delivery ran on the API's worker, which polls the main queue;
    // the hook's run, queued before it, was not taken: no workflow task of it started.
    const invoked = await client.call('POST', `/functions/${functionId}/invoke`, {});
    expect(invoked.status, JSON.stringify(invoked.body)).toBe(200);
    const { events } = await run.fetchHistory();
    expect(events?.filter((event) => event.workflowTaskStartedEventAttributes)).toEqual([]);
    expect((await client.runs(created.body.id)).map((listed) => String(listed.status))).toEqual(['running']);

    worker = await startTestWorker(api.database.url, taskQueue);
    const ended = await until(
      () => client.runs(created.body.id),
      (runs) => settled(runs),
      60_000,
    );
    expect(ended.map((listed) => String(listed.status))).toEqual(['success']);
  }, 120_000);
});

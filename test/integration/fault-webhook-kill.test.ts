import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../support/api.ts';
import { automationsClient } from '../support/automations.ts';
import { issueKey } from '../support/keys.ts';
import { until } from '../support/polling.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.ts';
import { startWorkerProcess, type WorkerProcess } from '../support/worker-process.ts';

let api: TestApi;
let client: ReturnType<typeof automationsClient>;
let receiver: WebhookReceiver;
let scratch: string;
let taskQueue: string;
const workers: WorkerProcess[] = [];

// Webhook deliveries run on worker processes only: the API has no worker here, so the one
// worker process holds the delivery when it is killed.
beforeAll(async () => {
  taskQueue = `fault-hook-${randomBytes(4).toString('hex')}`;
  scratch = await mkdtemp(join(tmpdir(), 'neoflow-fault-hook-'));
  receiver = await startWebhookReceiver();
  api = await startTestApi([], { NEOFLOW_TASK_QUEUE: taskQueue });
  client = automationsClient(api.url, (await issueKey(api.database.orm)).key);
  expect((await client.call('POST', '/secrets', { name: 'HOOK', value: 'fault-test-secret' })).status).toBe(201);
  workers.push(
    await startWorkerProcess(api.database.url, taskQueue, join(scratch, 'data'), join(scratch, 'worker-1.log')),
  );
});
afterAll(async () => {
  await Promise.allSettled(workers.map((worker) => worker.stop()));
  await api?.close();
  await receiver?.close();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

describe('fault: kill -9 of the worker during a webhook delivery', () => {
  it('delivers again under the same Neoflow-Delivery after a restart, and the run records one outcome', async () => {
    const at = '/held';
    const automationId = await client.create({
      name: 'hook under fault',
      status: 'inactive',
      trigger: { type: 'schedule', cron: '@yearly' },
      action: { type: 'webhook', url: receiver.url(at), signingSecret: 'HOOK' },
    });
    const arrived = receiver.holdNext(at);
    const fired = await client.call('POST', `/automations/${automationId}/trigger`);
    expect(fired.status).toBe(202);
    const runId = fired.body.run.id as string;
    // The POST is on the wire and unanswered: the worker is inside the delivery.
    await arrived;

    workers[0]!.process.child.kill('SIGKILL');
    expect(await workers[0]!.process.exited).toBe('SIGKILL');
    workers.push(
      await startWorkerProcess(api.database.url, taskQueue, join(scratch, 'data'), join(scratch, 'worker-2.log')),
    );

    // The killed attempt times out (20 s) and the retry, on the new worker, is answered 200.
    const runs = await until(
      () => client.runs(automationId),
      (list) => list.length === 1 && list[0]!.status !== 'running',
      120_000,
    );
    expect(runs).toEqual([expect.objectContaining({ id: runId, status: 'success', error: null })]);
    const deliveries = receiver.at(at);
    expect(deliveries.length).toBeGreaterThanOrEqual(2);
    expect(new Set(deliveries.map((delivery) => delivery.headers['neoflow-delivery']))).toEqual(new Set([runId]));
    expect(await api.services.temporal.client.workflow.getHandle(runId).result()).toBe('success');
  }, 180_000);
});

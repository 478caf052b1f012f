import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { automationsClient } from '../support/automations.ts';
import { killStackForThisFile } from '../support/kill-stack.ts';
import { until } from '../support/polling.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.ts';

// Webhook deliveries run on worker processes only: the API has no worker here, so the one
// worker process holds the delivery when it is killed.
const stack = killStackForThisFile('hook', 'worker');
let client: ReturnType<typeof automationsClient>;
let receiver: WebhookReceiver;

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  client = automationsClient(stack.api.url, stack.key);
  expect((await client.call('POST', '/secrets', { name: 'HOOK', value: 'fault-test-secret' })).status).toBe(201);
});
afterAll(async () => {
  await receiver?.close();
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

    await stack.kill(stack.processes[0]!);
    await stack.start();

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
    expect(await stack.api.services.temporal.client.workflow.getHandle(runId).result()).toBe('success');
  }, 180_000);
});

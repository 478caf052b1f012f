import { expect } from 'vitest';
import type { automationsClient } from './automations.ts';
import { until } from './polling.ts';
import type { WebhookReceiver } from './webhook-receiver.ts';

/**
 * For `seconds`, fires the webhook automation `hookId` by hand, one run at a time, and answers how
 * long each run took to reach `receiver` at `path` (Infinity for one not there within 15 s): what
 * another account's webhook sees while a test's burner loads the service.
 */
export async function deliveryDelays(
  client: ReturnType<typeof automationsClient>,
  hookId: string,
  receiver: WebhookReceiver,
  path: string,
  seconds: number,
): Promise<number[]> {
  const delays: number[] = [];
  const began = Date.now();
  while (Date.now() - began < seconds * 1000) {
    const firedAt = Date.now();
    const fired = await client.call('POST', `/automations/${hookId}/trigger`);
    expect(fired.status).toBe(202);
    const runId = fired.body.run.id as string;
    const delivered = await until(
      async () => receiver.at(path).some((request) => request.headers['neoflow-delivery'] === runId),
      (arrived) => arrived,
      15_000,
      50,
    );
    delays.push(delivered ? Date.now() - firedAt : Number.POSITIVE_INFINITY);
  }
  return delays;
}

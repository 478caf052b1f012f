import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { wallet } from '@cityofzion/neon-js';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createNeoRpc } from '../../src/chain/rpc.ts';
import { automationsClient, gasHash } from '../support/automations.ts';
import { deliveryDelays } from '../support/delivery-delays.ts';
import { issueKey } from '../support/keys.ts';
import { until } from '../support/polling.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.ts';
import { apiWithWorkerForThisFile } from '../support/worker.ts';
import { closeServer } from '../support/close-server.ts';

// The API and one worker process with the default slots (32 activities, 4 per account), and the
// tests' shortest schedule interval (1 s) so that one account can fire webhooks every second.
const running = apiWithWorkerForThisFile();
let slow: { url: string; received: () => number; server: Server };
let fast: WebhookReceiver;
let burner: ReturnType<typeof automationsClient>;
let other: ReturnType<typeof automationsClient>;

/** A receiver that answers every request after 10 s: a delivery to it holds its slot that long. */
async function startSlowReceiver() {
  let received = 0;
  const server = createServer((_request, response) => {
    received += 1;
    setTimeout(() => response.writeHead(200).end('late'), 10_000).unref();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/slow`, received: () => received, server };
}

beforeAll(async () => {
  slow = await startSlowReceiver();
  fast = await startWebhookReceiver();
  burner = automationsClient(running.api.url, (await issueKey(running.api.database.orm)).key);
  other = automationsClient(running.api.url, (await issueKey(running.api.database.orm)).key);
  for (const client of [burner, other])
    expect((await client.call('POST', '/secrets', { name: 'HOOK', value: 'fair-shares-secret' })).status).toBe(201);
});
afterAll(async () => {
  if (slow) await closeServer(slow.server);
  await fast?.close();
});

describe("one account's slow webhooks", () => {
  it("leave another account's webhook delivered within 5 s and the block follower within a block of the chain (90% of samples, never more than 3)", async () => {
    const neo = createNeoRpc(inject('neoRpcUrl'));
    const em = () => running.api.database.orm.em.fork();
    // The follower runs while a blockchain automation is active; this one never fires.
    await other.create({
      name: 'watch a transfer that never comes',
      trigger: {
        type: 'blockchain',
        scriptHash: gasHash,
        event: 'Transfer',
        filter: { to: new wallet.Account().address },
      },
      action: { type: 'webhook', url: fast.url('/never'), signingSecret: 'HOOK' },
    });
    /** Blocks made before the cursor was read and not yet read by the follower. */
    const lag = async () => {
      const count = await neo.getBlockCount();
      const [cursor] = await em().execute<{ next_index: number }[]>(`select "next_index" from "block_cursors"`);
      return cursor ? count - cursor.next_index : Number.POSITIVE_INFINITY;
    };
    expect(await until(lag, (blocks) => blocks <= 1, 60_000)).toBeLessThanOrEqual(1);

    const hooks = await Promise.all(
      [1, 2, 3].map((n) =>
        burner.create({
          name: `slow hook ${n}`,
          trigger: { type: 'schedule', cron: '* * * * * *' },
          action: { type: 'webhook', url: slow.url, signingSecret: 'HOOK' },
        }),
      ),
    );
    const otherHook = await other.create({
      name: 'fast hook',
      status: 'inactive',
      trigger: { type: 'schedule', cron: '@yearly' },
      action: { type: 'webhook', url: fast.url('/fast'), signingSecret: 'HOOK' },
    });
    await until(
      async () => slow.received(),
      (received) => received >= 4,
      60_000,
    );

    // 40 s of the burner's load: three new deliveries a second, each holding its slot for 10 s,
    // 32 slots in all (filled within 11 s when nothing bounds an account's share).
    const lags: number[] = [];
    const watching = { on: true };
    const watched = (async () => {
      while (watching.on) {
        lags.push(await lag());
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    })();
    const delays = await deliveryDelays(other, otherHook, fast, '/fast', 40);
    watching.on = false;
    await watched;
    for (const id of hooks) await burner.call('PATCH', `/automations/${id}`, { status: 'inactive' });
    console.log(
      `[fair shares] another account's deliveries: ${delays.map((ms) => ms.toFixed(0)).join(', ')} ms; ` +
        `follower lags ${lags.join('')}; slow receiver got ${slow.received()} requests`,
    );
    expect(Math.max(...delays)).toBeLessThan(5_000);
    // A sample is a block (1 s) coarse, and this machine runs the chain, Temporal and every
    // process of the service on two cores: the follower keeps within a block of the chain, with
    // an instant's slip of a block more at most. (Queued behind the deliveries, it falls behind a
    // block more every few seconds, 9 by the end of the window.)
    const sorted = [...lags].sort((a, b) => a - b);
    expect(sorted[Math.floor(sorted.length * 0.9)]).toBeLessThanOrEqual(1);
    expect(Math.max(...lags)).toBeLessThanOrEqual(3);
  }, 180_000);
});

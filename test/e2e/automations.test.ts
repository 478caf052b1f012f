import { setTimeout as sleep } from 'node:timers/promises';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import {
  automationsClient,
  gasHash,
  gasTransferAction,
  neoAboveTen,
  settled,
  type Loose,
} from '../support/automations.ts';
import { createKeyWithCli } from '../support/cli.ts';
import { uniqueAccountName } from '../support/keys.ts';
import { until } from '../support/polling.ts';
import { startPriceServer } from '../support/price-server.ts';

const { apiUrl, env } = inject('stack');
let client: ReturnType<typeof automationsClient>;
beforeAll(async () => {
  client = automationsClient(apiUrl, await createKeyWithCli(env, uniqueAccountName('e2e-auto')));
});

describe('automations on the stack from `neoflow up`', () => {
  it('fires a `* * * * * *` schedule at least 5 times in 6 s, and stops when paused', async () => {
    const functionId = await client.deploy('module.exports = async (context) => context.params.trigger;');
    const id = await client.create({
      name: 'every second',
      trigger: { type: 'schedule', cron: '* * * * * *' },
      action: { type: 'function', functionId, parameters: { hello: 'neo' } },
    });
    const created = Date.now();
    // Judged on the fires' own scheduled times: at least 5 in the first 6 s, however late recorded.
    const scheduledAt = (runs: Loose[]) => runs.map((run) => Date.parse(run.trigger.scheduledAt as string));
    const inWindow = (times: number[]) => times.filter((time) => time > created && time <= created + 6_000);
    const firstSix = await until(
      async () => scheduledAt(await client.runs(id)),
      (times) => inWindow(times).length >= 5,
      30_000,
    );
    console.log(`[e2e-schedule] ${inWindow(firstSix).length} fires scheduled in the 6 s window`);
    expect(inWindow(firstSix).length).toBeGreaterThanOrEqual(5);

    const pausedAt = Date.now();
    const paused = await client.call('PATCH', `/automations/${id}`, { status: 'inactive' });
    expect(paused.status).toBe(200);
    expect(paused.body.executionStats.nextExecution).toBeNull();
    // An absence needs time to show: the window in which a paused schedule must not fire. (Fires
    // scheduled before the pause may still be recorded in it; none may be scheduled after it.)
    await sleep(3_000);
    expect(scheduledAt(await client.runs(id)).filter((time) => time > pausedAt + 1_000)).toEqual([]);

    const runs = await until(() => client.runs(id), settled);
    expect(runs.every((run) => run.status === 'success')).toBe(true);
    const latest = runs[0]!;
    const execution = await client.call('GET', `/functions/${functionId}/executions/${latest.executionId}`);
    expect(execution.body.data.trigger).toEqual({ type: 'automation', automationId: id });
    expect(execution.body.data.params).toEqual({ hello: 'neo', trigger: latest.trigger });
    const got = await client.call('GET', `/automations/${id}`);
    expect(got.body.executionStats).toMatchObject({
      lastStatus: 'success',
      successCount: runs.length,
      failureCount: 0,
    });
  });

  it('sends a GAS transfer from the signer, which a watcher filtered on from = signer fires on exactly once', async () => {
    const { signer } = (await client.call('GET', '/account')).body as { signer: { address: string } };
    const watcher = await client.create({
      name: 'watch my transfers',
      trigger: { type: 'blockchain', scriptHash: gasHash, event: 'Transfer', filter: { from: signer.address } },
      action: { type: 'function', functionId: await client.deploy('module.exports = async (c) => c.params.trigger;') },
    });
    const sender = await client.create({
      name: 'pay once',
      status: 'inactive',
      trigger: { type: 'schedule', cron: '@yearly' },
      action: gasTransferAction(signer.address, '0x0000000000000000000000000000000000000001', '12345'),
    });
    expect((await client.call('POST', `/automations/${sender}/trigger`)).status).toBe(202);
    const [sent] = await until(() => client.runs(sender), settled, 90_000);
    expect(sent).toMatchObject({
      status: 'success',
      vmState: 'HALT',
      txHash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
    });

    const seenIt = (runs: { trigger: { txHash: string | null } }[]) =>
      runs.filter((run) => run.trigger.txHash === sent!.txHash);
    await until(
      () => client.runs(watcher),
      (runs) => seenIt(runs as never).length > 0 && settled(runs),
    );
    // A second firing of the same transfer would show up here.
    await sleep(3_000);
    const fired = seenIt((await client.runs(watcher)) as never);
    expect(fired).toHaveLength(1);
    expect(fired[0]).toMatchObject({ status: 'success', trigger: { eventName: 'Transfer', scriptHash: gasHash } });
  }, 120_000);

  it('fires a price automation once when the price crosses, not while it stays above, and again after it falls back', async () => {
    const prices = await startPriceServer();
    try {
      const id = await client.create({
        name: 'NEO above 10',
        trigger: neoAboveTen(prices.url),
        action: {
          type: 'function',
          functionId: await client.deploy('module.exports = async (c) => c.params.trigger;'),
        },
      });
      const firesAfter = async (price: string) => {
        prices.set(price);
        await prices.twoMoreReads();
        return (await client.runs(id)).length;
      };
      expect(await firesAfter('5.00')).toBe(0);
      expect(await firesAfter('10.000000000000000001')).toBe(1);
      expect(await firesAfter('12.5')).toBe(1);
      expect(await firesAfter('10')).toBe(1);
      expect(await firesAfter('11')).toBe(2);
      const runs = await until(() => client.runs(id), settled);
      expect(runs.map((run) => run.trigger.price as string)).toEqual(['11', '10.000000000000000001']);
      expect(runs.every((run) => run.status === 'success')).toBe(true);
      expect((await client.call('DELETE', `/automations/${id}`)).status).toBe(200);
    } finally {
      await prices.close();
    }
  }, 60_000);
});

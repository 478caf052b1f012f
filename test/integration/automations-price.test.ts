import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPriceServer } from '../support/price-server.ts';
import { until } from '../support/polling.ts';
import {
  api,
  call,
  create,
  echoFn,
  isoMillis,
  priceTrigger,
  runsOf,
  settledRuns,
  startAutomationsApi,
  stopAutomationsApi,
} from '../support/automations-api.ts';

// The automations area over HTTP: price triggers firing from a local source.
beforeAll(() => startAutomationsApi());
afterAll(stopAutomationsApi);

describe('price trigger firing (local price source)', () => {
  let prices: Awaited<ReturnType<typeof startPriceServer>>;
  beforeAll(async () => {
    prices = await startPriceServer();
  });
  afterAll(() => prices.close());

  /** Above 12.5, read every second from the local source, running the echo function. */
  const watchPrice = () =>
    create({
      status: 'active',
      trigger: {
        ...priceTrigger,
        source: { url: prices.url, path: 'data.price', timestampPath: 'data.ts' },
        pollInterval: 1,
        maxAge: 60,
      },
      action: { type: 'function', functionId: echoFn },
    });
  const aPoll = () => prices.twoMoreReads();

  it('fires when the condition becomes true, re-arms after false, compares decimals strictly, ignores stale prices', async () => {
    prices.set('15');
    const automation = await watchPrice();
    const [first] = await settledRuns(automation.id, 1);
    expect(first).toMatchObject({
      status: 'success',
      trigger: {
        type: 'price',
        asset: 'NEO',
        currency: 'USD',
        price: '15',
        observedAt: expect.stringMatching(isoMillis),
      },
    });
    await aPoll();
    expect(await runsOf(automation.id)).toHaveLength(1);

    // Equal is not above: false, so it re-arms; a price above by 1e-20 then fires (no float rounding).
    prices.set('12.5');
    await aPoll();
    expect(await runsOf(automation.id)).toHaveLength(1);
    prices.set('12.50000000000000000001');
    const [second] = await settledRuns(automation.id, 2);
    expect(second.trigger.price).toBe('12.50000000000000000001');

    // Re-armed by a low price, then a high but stale one: nothing fires until the price is fresh.
    prices.set('10');
    await aPoll();
    prices.set('20', 120);
    await aPoll();
    expect(await runsOf(automation.id)).toHaveLength(2);
    prices.set('20');
    const [third] = await settledRuns(automation.id, 3);
    expect(third).toMatchObject({ status: 'success', trigger: { price: '20' } });
    expect((await call('DELETE', `/automations/${automation.id}`)).status).toBe(200);
  });

  it('does not fire again when an active automation whose condition holds is renamed', async () => {
    prices.set('15');
    const automation = await watchPrice();
    await settledRuns(automation.id, 1);
    expect((await call('PATCH', `/automations/${automation.id}`, { name: 'renamed' })).status).toBe(200);
    await aPoll();
    expect(await runsOf(automation.id)).toHaveLength(1);
    expect((await call('DELETE', `/automations/${automation.id}`)).status).toBe(200);
  });

  it('re-arms when its condition changed while its poller ran on (a PATCH that could not reach Temporal)', async () => {
    prices.set('15');
    const automation = await watchPrice();
    await settledRuns(automation.id, 1);
    // What a PATCH of the condition leaves while Temporal does not answer: the row changed, and the
    // running poller, which the request could not start afresh, keeps its state (fired: disarmed).
    await api.database.orm.em
      .fork()
      .getConnection()
      .execute(`update "automations" set "trigger" = jsonb_set("trigger", '{value}', '"13"') where "id" = ?`, [
        automation.id,
      ]);
    const runs = await settledRuns(automation.id, 2);
    expect(runs).toHaveLength(2);
    expect(runs[0]).toMatchObject({ status: 'success', trigger: { price: '15' } });
    expect((await call('DELETE', `/automations/${automation.id}`)).status).toBe(200);
  });

  it('reads a source once per interval for all its automations, and fires each once per crossing', async () => {
    prices.set('5');
    // A URL of its own: a source no automation of the other tests reads.
    const url = `${prices.url}?shared`;
    const everyTwoSeconds = async () => {
      const automation = await create({
        status: 'active',
        trigger: {
          ...priceTrigger,
          source: { url, path: 'data.price', timestampPath: 'data.ts' },
          pollInterval: 2,
          maxAge: 60,
        },
        action: { type: 'function', functionId: echoFn },
      });
      return automation.id as string;
    };
    const ids = await Promise.all(Array.from({ length: 10 }, everyTwoSeconds));
    await aPoll();
    // One poller for the source: 4 more reads take 3 intervals (6 s). Ten pollers, even sharing
    // reads within a second, would make them in about 2.
    const readsBefore = prices.hits();
    const started = performance.now();
    await until(
      async () => prices.hits(),
      (reads) => reads >= readsBefore + 4,
      60_000,
      20,
    );
    expect(performance.now() - started).toBeGreaterThanOrEqual(5_000);

    const runCounts = async () => Promise.all(ids.map(async (id) => (await runsOf(id)).length as number));
    prices.set('15');
    for (const id of ids) await settledRuns(id, 1);
    await aPoll();
    expect(await runCounts()).toEqual(ids.map(() => 1));
    prices.set('10');
    await aPoll();
    prices.set('15');
    for (const id of ids) await settledRuns(id, 2);
    await aPoll();
    expect(await runCounts()).toEqual(ids.map(() => 2));
    for (const id of ids) expect((await call('DELETE', `/automations/${id}`)).status).toBe(200);
  });
});

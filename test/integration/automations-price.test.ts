import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type * as envelope from '../../src/crypto/envelope.ts';
import { open } from '../../src/crypto/envelope.ts';
import { startPriceServer } from '../support/price-server.ts';
import { until } from '../support/polling.ts';
import {
  api,
  call,
  type Body,
  create,
  echoFn,
  isoMillis,
  priceTrigger,
  runsOf,
  settledRuns,
  startAutomationsApi,
  stopAutomationsApi,
} from '../support/automations-api.ts';

// Every value unsealed in this process (the worker's included), recorded as it is.
vi.mock('../../src/crypto/envelope.ts', async (importOriginal) => {
  const actual = await importOriginal<typeof envelope>();
  return { ...actual, open: vi.fn(actual.open) };
});

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
  /** Above 12.5, read every `pollInterval` seconds from `url` (a source of the test's own), running the echo function. */
  const watchAt = async (url: string, status = 'active', pollInterval = 1) =>
    (
      await create({
        status,
        trigger: {
          ...priceTrigger,
          source: { url, path: 'data.price', timestampPath: 'data.ts' },
          pollInterval,
          maxAge: 60,
        },
        action: { type: 'function', functionId: echoFn },
      })
    ).id as string;
  const sql = (statement: string, values: unknown[]) =>
    api.database.orm.em.fork().getConnection().execute(statement, values);

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
    const ids = await Promise.all(Array.from({ length: 10 }, () => watchAt(url, 'active', 2)));
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

  it("unseals a custom source's URL once a poll for all its automations, their credentials read in one statement", async () => {
    prices.set('5');
    const ids = await Promise.all(Array.from({ length: 8 }, () => watchAt(`${prices.url}?one-unseal`)));
    await aPoll();
    const ours = (text: string) => ids.some((id) => text.includes(id));
    const statements = vi.spyOn(pg.Client.prototype, 'query');
    const unsealedBefore = vi.mocked(open).mock.calls.length;
    const readsBefore = prices.hits();
    await until(
      async () => prices.hits(),
      (reads) => reads >= readsBefore + 3,
      30_000,
      20,
    );
    const polls = prices.hits() - readsBefore;
    const credentialReads = statements.mock.calls.filter(([query, values]) => {
      const text = typeof query === 'string' ? query : (query as { text: string }).text;
      return text.includes('automation_credentials') && ours(JSON.stringify([text, values]));
    }).length;
    statements.mockRestore();
    const unseals = vi
      .mocked(open)
      .mock.calls.slice(unsealedBefore)
      .filter(([, context]) => ours(context)).length;
    // Eight automations were evaluated at each poll: per automation, that would be 8 of each a poll.
    // The window's edges may hold the unseal of one poll whose read it does not count.
    expect(unseals).toBeGreaterThanOrEqual(polls - 1);
    expect(unseals).toBeLessThanOrEqual(polls + 1);
    expect(credentialReads).toBeLessThanOrEqual(polls + 1);

    // Each automation read its price from the URL unsealed for another, and fires.
    prices.set('15');
    for (const id of ids) expect((await settledRuns(id, 1))[0]).toMatchObject({ status: 'success' });
    for (const id of ids) expect((await call('DELETE', `/automations/${id}`)).status).toBe(200);
  });

  it('fails an automation of a shared custom source whose own URL is not stored, or cannot be unsealed, as it did alone', async () => {
    prices.set('15');
    const url = `${prices.url}?held`;
    const [kept, missing, unheld] = await Promise.all([
      watchAt(url, 'inactive'),
      watchAt(url, 'inactive'),
      watchAt(url, 'inactive'),
    ]);
    // Out of band (a request changes no credential without its mask): one removed, one wrapped by
    // a master key this deployment does not hold.
    await sql(`delete from "automation_credentials" where "automation_id" = ?`, [missing]);
    await sql(`update "automation_credentials" set "master_key_id" = 'ffffffffffffffff' where "automation_id" = ?`, [
      unheld,
    ]);
    for (const id of [missing, unheld, kept]) {
      expect((await call('PATCH', `/automations/${id}`, { status: 'active' })).status).toBe(200);
    }
    expect((await settledRuns(kept, 1))[0]).toMatchObject({ status: 'success', trigger: { price: '15' } });
    const stopped = (id: string) =>
      until<Body>(
        async (): Promise<Body> => (await call('GET', `/automations/${id}`)).body,
        (body) => body.status === 'error',
      );
    expect((await stopped(missing)).details).toMatchObject({
      reason: 'trigger_unavailable',
      lastError: '"trigger.source.url" was changed or removed before it was sent',
    });
    expect((await stopped(unheld)).details).toMatchObject({
      reason: 'trigger_unavailable',
      lastError: expect.stringContaining('wrapped by master key ffffffffffffffff'),
    });
    expect(await runsOf(missing)).toHaveLength(0);
    expect(await runsOf(unheld)).toHaveLength(0);
    expect(await runsOf(kept)).toHaveLength(1);
    for (const id of [kept, missing, unheld]) expect((await call('DELETE', `/automations/${id}`)).status).toBe(200);
  });
});

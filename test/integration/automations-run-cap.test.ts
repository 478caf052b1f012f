import { wallet } from '@cityofzion/neon-js';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { fundFromDevWallet } from '../../src/stack/dev-funder.ts';
import { automationsClient, gasHash, neoAboveTen, settled, type Loose } from '../support/automations.ts';
import { issueKey } from '../support/keys.ts';
import { until } from '../support/polling.ts';
import { startPriceServer } from '../support/price-server.ts';
import { apiWithWorkerForThisFile } from '../support/worker.ts';

// A cap of 2 runs of one account per block and per poll (100 by default), so that three
// automations of one account reach it.
const running = apiWithWorkerForThisFile({ env: { NEOFLOW_ACCOUNT_RUNS_PER_READ: '2' } });

let burner: ReturnType<typeof automationsClient>;
let other: ReturnType<typeof automationsClient>;
let prices: Awaited<ReturnType<typeof startPriceServer>>;
beforeAll(async () => {
  const client = async () => automationsClient(running.api.url, (await issueKey(running.api.database.orm)).key);
  [burner, other] = await Promise.all([client(), client()]);
  prices = await startPriceServer();
});
afterAll(() => prices?.close());

const echo = (client: typeof burner) => client.deploy('module.exports = async () => "ran";');

/** `count` automations of `client` on `trigger`, each running `functionId`. */
const automations = (client: typeof burner, functionId: string, trigger: Loose, count: number) =>
  Promise.all(
    Array.from({ length: count }, (_, n) =>
      client.create({ name: `capped ${n}`, trigger, action: { type: 'function', functionId } }),
    ),
  );

/** The one run of each automation, once all have ended. */
const onlyRuns = async (client: typeof burner, ids: string[]): Promise<Loose[]> =>
  Promise.all(
    ids.map(async (id) => {
      const runs = await until(
        () => client.runs(id),
        (listed) => listed.length >= 1 && settled(listed),
        60_000,
      );
      expect(runs).toHaveLength(1);
      return runs[0]!;
    }),
  );

const outcomes = (runs: Loose[]) => runs.map((run): string => String(run.error?.name ?? run.status)).sort();

describe('the runs one account`s automations start per read', () => {
  it('are at most NEOFLOW_ACCOUNT_RUNS_PER_READ per block: the rest are recorded failed with RunLimitExceeded, and another account`s watcher runs', async () => {
    const recipient = new wallet.Account().address;
    const trigger = { type: 'blockchain', scriptHash: gasHash, event: 'Transfer', filter: { to: recipient } };
    const [burnerIds, otherIds] = await Promise.all([
      echo(burner).then((fn) => automations(burner, fn, trigger, 3)),
      echo(other).then((fn) => automations(other, fn, trigger, 1)),
    ]);
    await fundFromDevWallet(inject('neoRpcUrl'), inject('devWallet'), recipient, 1n);

    const burnerRuns = await onlyRuns(burner, burnerIds);
    expect(outcomes(burnerRuns)).toEqual(['RunLimitExceeded', 'success', 'success']);
    const refused = burnerRuns.find((run) => run.error?.name === 'RunLimitExceeded')!;
    expect(refused.status).toBe('failure');
    expect(refused.error.message).toMatch(
      /^Block \d+ fired more than 2 runs of this account's automations; this one was recorded without starting its action/,
    );
    expect(outcomes(await onlyRuns(other, otherIds))).toEqual(['success']);
  }, 120_000);

  it('are at most NEOFLOW_ACCOUNT_RUNS_PER_READ per price poll, and another account`s price trigger fires', async () => {
    // Below the trigger while they are created: each poll reads them all once the price crosses.
    prices.set('5.00');
    const [burnerIds, otherIds] = await Promise.all([
      echo(burner).then((fn) => automations(burner, fn, neoAboveTen(prices.url), 3)),
      echo(other).then((fn) => automations(other, fn, neoAboveTen(prices.url), 1)),
    ]);
    const readBefore = prices.hits();
    await until(
      async () => prices.hits(),
      (read) => read >= readBefore + 6,
    );
    prices.set('12.00');

    const burnerRuns = await onlyRuns(burner, burnerIds);
    expect(outcomes(burnerRuns)).toEqual(['RunLimitExceeded', 'success', 'success']);
    const refused = burnerRuns.find((run) => run.error?.name === 'RunLimitExceeded')!;
    expect(refused.error.message).toMatch(/^Poll price:\S+ of this price source fired more than 2 runs/);
    expect(outcomes(await onlyRuns(other, otherIds))).toEqual(['success']);
  }, 120_000);
});

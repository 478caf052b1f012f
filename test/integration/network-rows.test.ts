import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Automation } from '../../src/automations/model/automation.entity.ts';
import {
  activeStateRows,
  activeWatcherRows,
  firstWatchedBlock,
  networksWatchingBlocks,
} from '../../src/automations/model/automation.sql.ts';
import { advanceCursor, readCursor } from '../../src/automations/blocks/block-cursor.ts';
import { recordRuns, recordScheduledRun } from '../../src/automations/runs/fires.ts';
import { AutomationRun } from '../../src/automations/model/run.entity.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { issueKey } from '../support/keys.ts';

// What PostgreSQL keeps per network (issue 45): the automations each follower reads, the network
// each run records, and where each network's follower stood when an automation stopped.
let db: TestDatabase;
let accountId: string;
const fork = () => db.orm.em.fork();
let made = 0;

const gas = '0xd2a4cff31913016155e38e474a2c06d08be276cf';

/** An active automation of `network` with `trigger`, stored straight in the database. */
async function automationOf(network: string, trigger: Automation['trigger'], watchFromBlock: number | null = null) {
  const em = fork();
  const automation = em.create(Automation, {
    account: accountId,
    name: `of ${network} ${++made}`,
    network,
    status: 'active',
    triggerType: trigger.type,
    trigger,
    action: { type: 'webhook', url: 'https://example.com/hook', signingSecret: 'x'.repeat(32) },
    functionId: null,
    watchFromBlock,
    errorDetails: null,
    notify: [],
    gasBelow: [],
  });
  await em.flush();
  return automation;
}

beforeAll(async () => {
  db = await createTestDatabase();
  ({ accountId } = await issueKey(db.orm));
});
afterAll(async () => {
  await db?.drop();
});

describe("each network's followed automations", () => {
  it("are read by that network's follower only: watchers, state triggers, the first block watched", async () => {
    const mainWatcher = await automationOf('mainnet', { type: 'blockchain', scriptHash: gas, event: 'Transfer' }, 50);
    const testWatcher = await automationOf('testnet', { type: 'blockchain', scriptHash: gas, event: 'Transfer' }, 7);
    const testState = await automationOf(
      'testnet',
      { type: 'state', scriptHash: gas, operation: 'symbol', args: [], condition: 'changed' },
      7,
    );
    const ids = (rows: { id: string }[]) => rows.map((row) => row.id).sort();

    expect(ids(await activeWatcherRows(fork(), 'mainnet'))).toEqual([mainWatcher.id]);
    expect(ids(await activeWatcherRows(fork(), 'testnet'))).toEqual([testWatcher.id]);
    expect(ids(await activeStateRows(fork(), 'mainnet'))).toEqual([]);
    expect(ids(await activeStateRows(fork(), 'testnet'))).toEqual([testState.id]);
    expect(await firstWatchedBlock(fork(), 'mainnet')).toBe(50);
    expect(await firstWatchedBlock(fork(), 'testnet')).toBe(7);
    expect(await networksWatchingBlocks(fork(), ['mainnet', 'testnet', 'other'])).toEqual(['mainnet', 'testnet']);
  });
});

describe('a run', () => {
  it("records its automation's network, whatever recorded it: a fire, a failed fire, a schedule's", async () => {
    const automation = await automationOf('testnet', { type: 'schedule', cron: '@yearly' });
    const fired = await recordRuns(fork(), [
      { automation, fireKey: 'manual:1', payload: { type: 'manual' } },
      {
        automation,
        fireKey: 'manual:2',
        payload: { type: 'manual' },
        error: { name: 'InputQuarantined', message: 'refused' },
      },
    ]);
    const scheduled = await recordScheduledRun(fork(), automation.id, new Date().toISOString());
    const runIds = [...fired.map((run) => run.runId), scheduled!.runId];
    const runs = await fork().find(AutomationRun, { id: { $in: runIds } });
    expect(runs.map((run) => run.network)).toEqual(['testnet', 'testnet', 'testnet']);
  });
});

describe("a blockchain automation's followed_until", () => {
  it("is where its own network's follower stood when it stopped, not another network's", async () => {
    const transfers = { type: 'blockchain', scriptHash: gas, event: 'Transfer' } as const;
    const onMain = await automationOf('mainnet', transfers, 10);
    const onTest = await automationOf('testnet', transfers, 3);
    // Each follower moves its own cursor: mainnet's 100 blocks on, testnet's one.
    const follow = async (key: { network: string; name: string }, blocks: number) => {
      for (let block = 0; block < blocks; block++) {
        const { nextIndex } = await readCursor(fork(), key, () => Promise.resolve(0));
        await fork().transactional((em) => advanceCursor(em, key, nextIndex));
      }
      return (await readCursor(fork(), key, () => Promise.resolve(0))).nextIndex;
    };
    const mainAt = await follow({ network: '860833102', name: 'mainnet' }, 100);
    const testAt = await follow({ network: '894710606', name: 'testnet' }, 1);
    expect(mainAt).toBeGreaterThan(testAt + 50);

    await fork().nativeUpdate(Automation, { id: { $in: [onMain.id, onTest.id] } }, { status: 'inactive' });
    const followed = await fork().execute<{ followed_until: number }[]>(
      `select "followed_until" from "automations" where "id" in (?, ?) order by "network"`,
      [onMain.id, onTest.id],
    );
    expect(followed.map((row) => row.followed_until)).toEqual([mainAt, testAt]);
  });
});

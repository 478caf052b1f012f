import { wallet } from '@cityofzion/neon-js';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { createNeoRpc } from '../../src/chain/rpc.ts';
import { fundFromDevWallet } from '../../src/stack/dev-funder.ts';
import { automationsClient, gasHash, settled, type Loose } from '../support/automations.ts';
import { issueKey } from '../support/keys.ts';
import { until } from '../support/polling.ts';
import { apiWithWorkerForThisFile } from '../support/worker.ts';

// Replays match a block range with the follower's matcher and record runs under its fire keys.
const running = apiWithWorkerForThisFile();
const neo = () => createNeoRpc(inject('neoRpcUrl'));

let client: ReturnType<typeof automationsClient>;
beforeAll(async () => {
  client = automationsClient(running.api.url, (await issueKey(running.api.database.orm)).key);
});

const freshAddress = () => new wallet.Account(wallet.generatePrivateKey()).address;
const transfer = (recipient: string, amount: bigint) =>
  fundFromDevWallet(inject('neoRpcUrl'), inject('devWallet'), recipient, amount);

/** An automation of `trigger` echoing what fired it. */
async function watcher(trigger: Record<string, unknown>, status: 'active' | 'inactive') {
  const functionId = await client.deploy('module.exports = async (context) => context.params.trigger.txHash;');
  const id = await client.create({
    name: 'replayed',
    status,
    trigger: { type: 'blockchain', ...trigger },
    action: { type: 'function', functionId },
  });
  return { id, functionId };
}

/** Starts a replay and answers it once it ended. */
async function replayed(id: string, body: Record<string, unknown>): Promise<Loose> {
  const started = await client.call('POST', `/automations/${id}/replays`, body);
  expect(started.status, JSON.stringify(started.body)).toBe(202);
  expect(started.body).toMatchObject({ automationId: id, status: 'running', blocksDone: 0 });
  const ended = await until(
    async () => (await client.call('GET', `/automations/${id}/replays/${started.body.id as string}`)).body,
    (replay) => replay.status !== 'running',
    90_000,
  );
  expect(ended.status, JSON.stringify(ended)).toBe('completed');
  expect(ended.blocksDone).toBe(ended.blocksTotal);
  return ended;
}

const settledRuns = (id: string, count: number) =>
  until(
    () => client.runs(id),
    (runs) => runs.length >= count && settled(runs),
    60_000,
  );

const txHashes = (runs: Loose[]) => runs.map((run) => run.trigger.txHash as string).sort();

describe('a replay of the blocks made while an automation was inactive', () => {
  it('finds the five transfers once: a dry run lists them, a replay fires five runs, again and over the live follower none more', async () => {
    const recipient = freshAddress();
    const { id, functionId } = await watcher(
      { scriptHash: gasHash, event: 'Transfer', filter: { to: recipient } },
      'inactive',
    );
    const fromBlock = await neo().getBlockCount();
    const sent: string[] = [];
    for (let amount = 1n; amount <= 5n; amount++) sent.push(await transfer(recipient, amount));
    const toBlock = (await neo().getBlockCount()) - 1;
    expect(await client.runs(id)).toEqual([]);

    const dry = await replayed(id, { fromBlock, toBlock, dryRun: true });
    expect(dry).toMatchObject({ dryRun: true, matchCount: 5, runsStarted: 0, matchesTruncated: false });
    expect((dry.matches as Loose[]).map((match) => match.txHash as string).sort()).toEqual([...sent].sort());
    expect(dry.matches[0]).toMatchObject({
      notificationIndex: expect.any(Number),
      state: { to: `0x${wallet.getScriptHashFromAddress(recipient)}`, amount: '1' },
    });
    expect(await client.runs(id)).toEqual([]);

    const first = await replayed(id, { fromBlock, toBlock });
    expect(first).toMatchObject({ dryRun: false, matchCount: 5, runsStarted: 5 });
    expect(first).not.toHaveProperty('matches');
    const runs = await settledRuns(id, 5);
    expect(txHashes(runs)).toEqual([...sent].sort());
    expect(runs.every((run) => run.status === 'success')).toBe(true);

    const again = await replayed(id, { fromBlock, toBlock });
    expect(again).toMatchObject({ matchCount: 5, runsStarted: 0 });
    // In the Web UI as every workflow is, on the deployment's task queue, never the follower's.
    const handle = running.api.services.temporal.client.workflow.getHandle(again.id as string);
    // The row says completed with the last page; the workflow then labels its end and returns.
    expect(await handle.result()).toBe('completed');
    const workflow = await handle.describe();
    expect(workflow).toMatchObject({ type: 'replayBlocks', taskQueue: running.taskQueue });
    expect(workflow.searchAttributes).toMatchObject({
      NeoflowTrigger: ['replay'],
      NeoflowAutomationId: [id],
      NeoflowAccountId: [expect.any(String)],
      NeoflowStatus: ['completed'],
    });
    expect(await client.runs(id)).toHaveLength(5);

    // Live following from now on; a replay over what it fired and the five before adds nothing.
    const activated = await client.call('PATCH', `/automations/${id}`, { status: 'active' });
    expect(activated.status).toBe(200);
    const live = await transfer(recipient, 6n);
    const withLive = await settledRuns(id, 6);
    expect(txHashes(withLive)).toEqual([...sent, live].sort());
    const overlapping = await replayed(id, { fromBlock, toBlock: (await neo().getBlockCount()) - 1 });
    expect(overlapping).toMatchObject({ matchCount: 6, runsStarted: 0 });
    expect(txHashes(await client.runs(id))).toEqual([...sent, live].sort());
    const executions = await client.call('GET', `/functions/${functionId}/executions?limit=100`);
    expect(executions.body.pagination?.total).toBe(6);
  }, 240_000);

  it('a dry run with more matches than it lists answers the first 100, counts them all and says so', async () => {
    // Every block mints GAS to the committee: every block holds a GAS Transfer.
    await until(
      () => neo().getBlockCount(),
      (count) => count > 130,
      180_000,
    );
    const { id } = await watcher({ scriptHash: gasHash, event: 'Transfer' }, 'inactive');
    const dry = await replayed(id, { fromBlock: 0, toBlock: 129, dryRun: true });
    expect(dry.matchCount).toBeGreaterThan(100);
    expect(dry.matches).toHaveLength(100);
    expect(dry.matchesTruncated).toBe(true);
    expect(await client.runs(id)).toEqual([]);
  }, 240_000);

  it('refuses a range over 100,000 blocks, past the chain, or of a trigger that reads no blocks', async () => {
    const { id } = await watcher({ scriptHash: gasHash, event: 'Transfer' }, 'inactive');
    const tooLong = await client.call('POST', `/automations/${id}/replays`, { fromBlock: 0, toBlock: 100_000 });
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.error).toMatchObject({ code: 'INVALID_REQUEST', details: { field: 'toBlock' } });
    const height = await neo().getBlockCount();
    const ahead = await client.call('POST', `/automations/${id}/replays`, { fromBlock: 0, toBlock: height + 100 });
    expect(ahead.status).toBe(400);
    expect(ahead.body.error).toMatchObject({ code: 'INVALID_REQUEST', details: { field: 'toBlock' } });
    const schedule = await client.create({
      name: 'yearly',
      status: 'inactive',
      trigger: { type: 'schedule', cron: '@yearly' },
      action: { type: 'function', functionId: await client.deploy('module.exports = async () => 1;') },
    });
    const refused = await client.call('POST', `/automations/${schedule}/replays`, { fromBlock: 0, toBlock: 1 });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ code: 'INVALID_REQUEST', details: { field: 'trigger' } });
    const unknown = await client.call('GET', `/automations/${id}/replays/rpl_unknown`);
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toMatchObject({ code: 'REPLAY_NOT_FOUND' });
  });
});

describe('a PATCH to active with resumeFrom', () => {
  it("'lastProcessed' replays the blocks made while it was inactive: each transfer fires once", async () => {
    const recipient = freshAddress();
    const { id } = await watcher({ scriptHash: gasHash, event: 'Transfer', filter: { to: recipient } }, 'active');
    const live = await transfer(recipient, 1n);
    await settledRuns(id, 1);
    const paused = await client.call('PATCH', `/automations/${id}`, { status: 'inactive' });
    expect(paused.status).toBe(200);
    const missed = [await transfer(recipient, 2n), await transfer(recipient, 3n)];

    const resumed = await client.call('PATCH', `/automations/${id}`, { status: 'active', resumeFrom: 'lastProcessed' });
    expect(resumed.status, JSON.stringify(resumed.body)).toBe(200);
    expect(resumed.body).toMatchObject({ status: 'active', replay: { status: 'running', dryRun: false } });
    const replayId = resumed.body.replay.id as string;
    const ended = await until(
      async () => (await client.call('GET', `/automations/${id}/replays/${replayId}`)).body,
      (replay) => replay.status !== 'running',
      90_000,
    );
    expect(ended).toMatchObject({ status: 'completed', runsStarted: 2 });
    const after = await transfer(recipient, 4n);
    const runs = await settledRuns(id, 4);
    expect(txHashes(runs)).toEqual([live, ...missed, after].sort());
  }, 240_000);

  it('is refused without status active, and on an automation already active', async () => {
    const { id } = await watcher({ scriptHash: gasHash, event: 'Transfer' }, 'active');
    const alone = await client.call('PATCH', `/automations/${id}`, { resumeFrom: 'current' });
    expect(alone.status).toBe(400);
    expect(alone.body.error).toMatchObject({ code: 'INVALID_REQUEST', details: { field: 'resumeFrom' } });
    const again = await client.call('PATCH', `/automations/${id}`, { status: 'active', resumeFrom: 0 });
    expect(again.status).toBe(400);
    expect(again.body.error).toMatchObject({ code: 'INVALID_REQUEST', details: { field: 'resumeFrom' } });
  });
});

import { wallet } from '@cityofzion/neon-js';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createNeoRpc } from '../../src/chain/rpc.ts';
import { replaysPerAccount } from '../../src/automations/replays/replays.service.ts';
import { automationsClient, gasHash, type Loose } from '../support/automations.ts';
import { deliveryDelays } from '../support/delivery-delays.ts';
import { issueKey } from '../support/keys.ts';
import { until } from '../support/polling.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.ts';
import { apiWithWorkerForThisFile } from '../support/worker.ts';

// Replays read 20 blocks a second, so a page lasts its 2 s; an account's runs in flight past 3
// hold its replays back (NEOFLOW_ACCOUNT_QUEUED_EXECUTIONS); 4 activities of an account at once
// (NEOFLOW_ACCOUNT_ACTIVITIES, the default) in the one worker process that runs activities. The
// request rate is not what is tested: on a quiet machine the burner's refused asks, answered in
// milliseconds, would reach the per-key limit and be told 429 before the workers feel anything.
const running = apiWithWorkerForThisFile({
  env: {
    NEOFLOW_REPLAY_BLOCKS_PER_SECOND: '20',
    NEOFLOW_ACCOUNT_QUEUED_EXECUTIONS: '3',
    NEOFLOW_RATE_LIMIT: '100000/10s',
  },
});
const neo = () => createNeoRpc(inject('neoRpcUrl'));
let fast: WebhookReceiver;
beforeAll(async () => {
  fast = await startWebhookReceiver();
});
afterAll(async () => {
  await fast?.close();
});

const newAccount = async () => automationsClient(running.api.url, (await issueKey(running.api.database.orm)).key);

/** `count` inactive automations watching GAS transfers (every block holds one), each a replay to run. */
async function watchers(client: ReturnType<typeof automationsClient>, count: number): Promise<string[]> {
  const functionId = await client.deploy('module.exports = async () => 1;');
  const ids: string[] = [];
  for (let n = 0; n < count; n++) {
    ids.push(
      await client.create({
        name: `replayed ${n}`,
        status: 'inactive',
        trigger: { type: 'blockchain', scriptHash: gasHash, event: 'Transfer' },
        action: { type: 'function', functionId },
      }),
    );
  }
  return ids;
}

/**
 * The range of the chain's last `blocks` blocks, once it has that many: never more, however long
 * the chain has grown under the files run before this one (a replay of all of it would read a
 * block per second of the suite so far, 40 blocks to a page).
 */
async function range(blocks: number) {
  const height = await until(
    () => neo().getBlockCount(),
    (count) => count > blocks,
    120_000,
  );
  return { fromBlock: height - blocks, toBlock: height - 1 };
}

const dryReplay = (client: ReturnType<typeof automationsClient>, id: string, body: Record<string, unknown>) =>
  client.call('POST', `/automations/${id}/replays`, { ...body, dryRun: true });

const ended = (client: ReturnType<typeof automationsClient>, id: string, replayId: string) =>
  until(
    async () => (await client.call('GET', `/automations/${id}/replays/${replayId}`)).body,
    (replay) => replay.status !== 'running',
    120_000,
  );

describe("an account's replays", () => {
  it(`run ${replaysPerAccount} at a time: the next is 409 REPLAY_LIMIT_REACHED naming the limit, another account's still starts`, async () => {
    const burner = await newAccount();
    const other = await newAccount();
    const ids = await watchers(burner, replaysPerAccount + 1);
    const [otherId] = await watchers(other, 1);
    const body = await range(40);
    const started = await Promise.all(ids.slice(0, replaysPerAccount).map((id) => dryReplay(burner, id, body)));
    expect(started.map((answer) => answer.status)).toEqual(Array(replaysPerAccount).fill(202));
    const refused = await dryReplay(burner, ids[replaysPerAccount]!, body);
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({ code: 'REPLAY_LIMIT_REACHED', details: { limit: replaysPerAccount } });
    // The same automation again is still the automation's own conflict.
    const again = await dryReplay(burner, ids[0]!, body);
    expect(again.body.error).toMatchObject({ code: 'REPLAY_IN_PROGRESS', details: { replayId: started[0]!.body.id } });
    expect((await dryReplay(other, otherId!, body)).status).toBe(202);

    // Their pages take the account's turn: at most NEOFLOW_ACCOUNT_ACTIVITIES (4) read at once.
    const client = running.api.services.temporal.client;
    const pagesAtOnce: number[] = [];
    for (;;) {
      const described = await Promise.all(
        started.map((answer) => client.workflow.getHandle(answer.body.id as string).describe()),
      );
      if (described.every((workflow) => workflow.status.name !== 'RUNNING')) break;
      pagesAtOnce.push(
        described
          .flatMap((workflow) => workflow.raw.pendingActivities ?? [])
          // Reading: started and past its first block (a page refused its turn reads none).
          .filter(
            (activity) =>
              activity.activityType?.name === 'replayPage' &&
              Number(activity.state) === 2 &&
              activity.lastHeartbeatTime != null,
          ).length,
      );
    }
    console.log(`[replays] pages of one account reading at once: ${pagesAtOnce.join(' ')}`);
    expect(Math.max(...pagesAtOnce)).toBeGreaterThan(0);
    expect(Math.max(...pagesAtOnce)).toBeLessThanOrEqual(4);
    for (const [index, answer] of started.entries()) {
      expect(await ended(burner, ids[index]!, answer.body.id as string)).toMatchObject({ status: 'completed' });
    }
    // One ended: the account may start another.
    expect((await dryReplay(burner, ids[replaysPerAccount]!, body)).status).toBe(202);
  }, 240_000);

  it('a dry run waits, as a replay does, while its account has its runs in flight', async () => {
    const burner = await newAccount();
    const holdMs = 8_000;
    const functionId = await burner.deploy(
      `module.exports = async () => { Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ${holdMs}); return 1; };`,
    );
    const held = await burner.create({
      name: 'holds its run',
      status: 'inactive',
      trigger: { type: 'schedule', cron: '@yearly' },
      action: { type: 'function', functionId },
    });
    const [id] = await watchers(burner, 1);
    const body = await range(20);
    for (let n = 0; n < 3; n++) expect((await burner.call('POST', `/automations/${held}/trigger`)).status).toBe(202);
    const started = await dryReplay(burner, id!, body);
    expect(started.status).toBe(202);
    const replay = await ended(burner, id!, started.body.id as string);
    expect(replay.status).toBe('completed');
    const runs = await until(
      () => burner.runs(held),
      (list) => list.length === 3 && list.every((run: Loose) => run.status !== 'running'),
      60_000,
    );
    const firstEnd = Math.min(...runs.map((run: Loose) => Date.parse(run.completedAt as string)));
    // The dry run read nothing while the three runs held the account at its limit.
    expect(Date.parse(replay.completedAt as string)).toBeGreaterThanOrEqual(firstEnd);
  }, 180_000);

  it(`one account asking for ~1,000 dry runs (${replaysPerAccount} run, the rest refused) leaves another's webhook delivered within 5 s and the follower within a block`, async () => {
    const burner = await newAccount();
    const other = await newAccount();
    expect((await other.call('POST', '/secrets', { name: 'HOOK', value: 'replay-lanes-secret' })).status).toBe(201);
    const em = () => running.api.database.orm.em.fork();
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
    const lag = async () => {
      const count = await neo().getBlockCount();
      const [cursor] = await em().execute<{ next_index: number }[]>(`select "next_index" from "block_cursors"`);
      return cursor ? count - cursor.next_index : Number.POSITIVE_INFINITY;
    };
    expect(await until(lag, (blocks) => blocks <= 1, 60_000)).toBeLessThanOrEqual(1);
    const otherHook = await other.create({
      name: 'fast hook',
      status: 'inactive',
      trigger: { type: 'schedule', cron: '@yearly' },
      action: { type: 'webhook', url: fast.url('/fast'), signingSecret: 'HOOK' },
    });
    const ids = await watchers(burner, 30);
    const body = await range(60);

    // 30 s of the burner asking for a dry run of each of its automations in turn, as fast as
    // answered: at most `replaysPerAccount` run, the rest are refused.
    const asked = { on: true, accepted: 0, refused: 0, mostRunning: 0 };
    const asking = (async () => {
      for (let n = 0; asked.on; n++) {
        const answer = await dryReplay(burner, ids[n % ids.length]!, body);
        if (answer.status === 202) asked.accepted += 1;
        else if (answer.body.error?.code === 'REPLAY_LIMIT_REACHED' || answer.body.error?.code === 'REPLAY_IN_PROGRESS')
          asked.refused += 1;
        else throw new Error(`a replay answered ${answer.status}: ${JSON.stringify(answer.body)}`);
      }
    })();
    const lags: number[] = [];
    const watching = (async () => {
      while (asked.on) {
        lags.push(await lag());
        const [row] = await em().execute<{ count: string }[]>(
          `select count(*) from "automation_replays" where "automation_id" in (${ids.map(() => '?').join(',')}) and "status" = 'running'`,
          ids,
        );
        asked.mostRunning = Math.max(asked.mostRunning, Number(row?.count ?? 0));
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    })();
    const delays = await deliveryDelays(other, otherHook, fast, '/fast', 30);
    asked.on = false;
    await Promise.all([asking, watching]);
    console.log(
      `[replays] ${asked.accepted} dry runs started, ${asked.refused} refused, at most ${asked.mostRunning} running; ` +
        `another account's deliveries: ${delays.map((ms) => ms.toFixed(0)).join(', ')} ms; follower lags ${lags.join('')}`,
    );
    expect(asked.mostRunning).toBeLessThanOrEqual(replaysPerAccount);
    expect(asked.refused).toBeGreaterThan(0);
    expect(Math.max(...delays)).toBeLessThan(5_000);
    const sorted = [...lags].sort((a, b) => a - b);
    expect(sorted[Math.floor(sorted.length * 0.9)]).toBeLessThanOrEqual(1);
    expect(Math.max(...lags)).toBeLessThanOrEqual(3);
  }, 240_000);
});

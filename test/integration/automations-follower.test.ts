import { sc, wallet } from '@cityofzion/neon-js';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createNeoRpc } from '../../src/chain/rpc.ts';
import { WatcherIndex } from '../../src/automations/blocks/watcher-index.ts';
import { followerCursorAge, followerLag } from '../../src/metrics/metrics.ts';
import { fundFromDevWallet } from '../../src/stack/dev-funder.ts';
import { automationsClient, gasHash, settled, type Loose } from '../support/automations.ts';
import {
  callContract,
  compileContract,
  deployContract,
  fundedSender,
  updateContract,
  type CompiledContract,
} from '../support/contracts.ts';
import { issueKey } from '../support/keys.ts';
import { until } from '../support/polling.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.ts';
import { apiWithWorkerForThisFile } from '../support/worker.ts';

// The block follower is one loop per network for every account: no input stops it. One worker
// only, so that the event ABIs the follower decodes with are those of one cache.
const running = apiWithWorkerForThisFile({ hostWorker: false });
const neo = () => createNeoRpc(inject('neoRpcUrl'));

let owner: ReturnType<typeof automationsClient>;
let other: ReturnType<typeof automationsClient>;
let receiver: WebhookReceiver;
let announcer: CompiledContract;
beforeAll(async () => {
  const client = async () => automationsClient(running.api.url, (await issueKey(running.api.database.orm)).key);
  [owner, other] = await Promise.all([client(), client()]);
  receiver = await startWebhookReceiver();
  announcer = await compileContract(inject('neoGoPath'), 'announcer');
});
afterAll(() => receiver?.close());

const echo = (client: typeof owner) => client.deploy('module.exports = async (context) => context.params.trigger;');

/** An automation of `client` running `functionId` on each `event` of `scriptHash` its filter matches. */
const watch = (client: typeof owner, functionId: string, trigger: Record<string, unknown>, extra: Loose = {}) =>
  client.create({
    name: `watch ${String(trigger.scriptHash)}`,
    trigger: { type: 'blockchain', ...trigger },
    action: { type: 'function', functionId },
    ...extra,
  });

const transfersTo = (recipient: string) => ({ scriptHash: gasHash, event: 'Transfer', filter: { to: recipient } });

/** Sends `amount` GAS fractions to `recipient` from the dev wallet; answers the transaction hash. */
const transfer = (recipient: string, amount = 1n) =>
  fundFromDevWallet(inject('neoRpcUrl'), inject('devWallet'), recipient, amount);

/** The runs of `id` once `count` of them have ended. */
const endedRuns = (client: typeof owner, id: string, count: number, timeoutMs = 30_000) =>
  until(
    () => client.runs(id),
    (runs) => runs.length >= count && settled(runs),
    timeoutMs,
  );

/**
 * Makes the database refuse the runs of `automationId` that `condition` (SQL on `new`) picks, as a
 * bug or a value PostgreSQL cannot store would; until `remove`.
 */
async function refuseRuns(automationId: string, condition: string) {
  const sql = running.api.database.orm.em.getConnection();
  await sql.execute(`create function refuse_runs() returns trigger language plpgsql as $$
    begin
      if new."automation_id" = '${automationId}' and ${condition} then raise exception 'injected fault'; end if;
      return new;
    end $$`);
  await sql.execute(`create trigger refuse_runs before insert on "automation_runs"
    for each row execute function refuse_runs()`);
  return {
    remove: async () => {
      await sql.execute('drop trigger refuse_runs on "automation_runs"');
      await sql.execute('drop function refuse_runs()');
    },
  };
}

const freshAddress = () => new wallet.Account(wallet.generatePrivateKey()).address;

/** The event's arguments as the run's function was given them. */
async function stateSeen(client: typeof owner, functionId: string, run: Loose): Promise<unknown> {
  const execution = await client.call('GET', `/functions/${functionId}/executions/${run.executionId as string}`);
  expect(execution.status).toBe(200);
  return execution.body.data.result.state;
}

describe("a blockchain run's record", () => {
  it("shows the event's decoded arguments, as the run's function received them, in the runs list and the run", async () => {
    const recipient = freshAddress();
    const echoFn = await echo(owner);
    const id = await watch(owner, echoFn, transfersTo(recipient));
    const sent = await transfer(recipient, 7n);
    const [run] = await endedRuns(owner, id, 1);
    const state = {
      from: expect.stringMatching(/^0x/),
      to: `0x${wallet.getScriptHashFromAddress(recipient)}`,
      amount: '7',
    };
    expect(run).toMatchObject({ status: 'success', trigger: { type: 'blockchain', txHash: sent, state } });
    expect(run!.trigger.state).toEqual(await stateSeen(owner, echoFn, run!));
    const one = await owner.call('GET', `/automations/${id}/runs/${run!.id as string}`);
    expect(one.body.trigger).toEqual(run!.trigger);
    expect(one.body.trigger).not.toHaveProperty('stateTooLarge');
  });
});

describe('one automation`s input the follower cannot process', () => {
  it('fails only that automation`s run, with InputQuarantined and its failure rule told, while the others fire', async () => {
    const recipient = freshAddress();
    const told = '/quarantined';
    const notify = [{ on: ['failure'], channel: { type: 'slack', url: receiver.url(told) } }];
    const stuck = await watch(owner, await echo(owner), transfersTo(recipient), { notify });
    const fine = await watch(other, await echo(other), transfersTo(recipient));
    // The fault: the database refuses every run of `stuck` as the follower first records it.
    const fault = await refuseRuns(stuck, `new."status" = 'running'`);
    try {
      const first = await transfer(recipient);
      const [fired] = await endedRuns(other, fine, 1);
      expect(fired).toMatchObject({ status: 'success', trigger: { txHash: first } });
      const [quarantined] = await endedRuns(owner, stuck, 1);
      expect(quarantined).toMatchObject({
        status: 'failure',
        trigger: { type: 'blockchain', txHash: first, eventName: 'Transfer' },
        error: {
          name: 'InputQuarantined',
          message: expect.stringMatching(
            new RegExp(
              `^Notification \\d+ of transaction ${first} in block \\d+ could not be processed .*injected fault`,
            ),
          ),
        },
      });
      expect(quarantined).not.toHaveProperty('executionId');
      // The owner is told as for any failed run.
      const [notice] = await until(
        async () => receiver.at(told),
        (requests) => requests.length > 0,
      );
      expect(notice!.body).toContain('InputQuarantined');
      // Recorded in the block's own transaction (now() is the transaction's time), not by the action
      // started after it: a worker lost in between loses no notice.
      const [recorded] = await running.api.database.orm.em.getConnection().execute<{ together: boolean }[]>(
        `select n."created_at" = r."completed_at" as "together"
          from "notifications" n join "automation_runs" r on r."id" = n."run_id" where r."id" = ?`,
        [quarantined!.id],
      );
      expect(recorded).toEqual({ together: true });

      // The follower went on: the next transfer fires both again, each once.
      const second = await transfer(recipient);
      const fine2 = await endedRuns(other, fine, 2);
      expect(fine2.map((run) => run.trigger.txHash as string)).toEqual([second, first]);
      const stuck2 = await endedRuns(owner, stuck, 2);
      expect(stuck2.map((run): unknown[] => [run.status, run.error.name, run.trigger.txHash])).toEqual([
        ['failure', 'InputQuarantined', second],
        ['failure', 'InputQuarantined', first],
      ]);
    } finally {
      await fault.remove();
    }
  });
});

describe('a follower whose rounds keep failing', () => {
  /** What the follower's gauges say in this process, the one worker's. */
  const gauges = async () => ({
    age: (await followerCursorAge.get()).values[0]?.value ?? 0,
    lag: (await followerLag.get()).values[0]?.value ?? 0,
  });

  it('exports a cursor age and a block lag that grow, so that it alerts, and catches up once it can', async () => {
    const recipient = freshAddress();
    const blocked = await watch(owner, await echo(owner), transfersTo(recipient));
    // Every run of `blocked` refused, quarantined ones too: its block cannot be recorded at all.
    const fault = await refuseRuns(blocked, 'true');
    let sent: string;
    try {
      sent = await transfer(recipient);
      const stalled = await until(gauges, ({ age, lag }) => age > 5 && lag >= 3, 60_000);
      expect(stalled.age).toBeGreaterThan(5);
      expect(stalled.lag).toBeGreaterThanOrEqual(3);
    } finally {
      await fault.remove();
    }
    const [run] = await endedRuns(owner, blocked, 1, 60_000);
    expect(run).toMatchObject({ status: 'success', trigger: { txHash: sent } });
    const resumed = await until(gauges, ({ age, lag }) => age < 5 && lag < 3, 60_000);
    expect(resumed.age).toBeLessThan(5);
  });
});

describe('a contract of a tenant', () => {
  // A contract's hash is its deployer's, its name's and its script's: one deployer per deploy.
  const deployerOf = () => fundedSender(inject('neoRpcUrl'), inject('devWallet'), 50n);

  it('emitting a String argument that holds U+0000 fires its watcher, and stops no other account`s watcher', async () => {
    const deployer = await deployerOf();
    const contract = await deployContract(neo(), deployer, announcer);
    const echoFn = await echo(owner);
    const watcher = await watch(owner, echoFn, { scriptHash: contract, event: 'Said' });
    const recipient = freshAddress();
    const transfers = await watch(other, await echo(other), transfersTo(recipient));

    const said = await callContract(neo(), deployer, contract, 'say', [sc.ContractParam.string('a\u0000b')]);
    const sent = await transfer(recipient);
    const [transferRun] = await endedRuns(other, transfers, 1);
    expect(transferRun).toMatchObject({ status: 'success', trigger: { txHash: sent } });
    const [saidRun] = await endedRuns(owner, watcher, 1);
    expect(saidRun).toMatchObject({
      status: 'success',
      trigger: { type: 'blockchain', txHash: said, eventName: 'Said' },
    });
    expect(await stateSeen(owner, echoFn, saidRun!)).toEqual({ text: 'a\uFFFDb' });
    // The record shows it as stored: U+0000 kept as U+FFFD.
    expect(saidRun!.trigger.state).toEqual({ text: 'a\uFFFDb' });
  });

  it('updated with a renamed event parameter, is decoded and filtered by its new ABI', async () => {
    const deployer = await deployerOf();
    const contract = await deployContract(neo(), deployer, announcer);
    const echoFn = await echo(owner);
    const all = await watch(owner, echoFn, { scriptHash: contract, event: 'Said' });
    // The follower reads the contract's ABI for this first event, and keeps it.
    const before = await callContract(neo(), deployer, contract, 'say', [sc.ContractParam.string('before')]);
    const [first] = await endedRuns(owner, all, 1);
    expect(first).toMatchObject({ status: 'success', trigger: { txHash: before } });
    expect(await stateSeen(owner, echoFn, first!)).toEqual({ text: 'before' });

    await updateContract(
      neo(),
      deployer,
      contract,
      await compileContract(inject('neoGoPath'), 'announcer', 'announcer-renamed'),
    );
    const renamed = await watch(owner, echoFn, {
      scriptHash: contract,
      event: 'Said',
      filter: { words: 'after' },
    });
    const after = await callContract(neo(), deployer, contract, 'say', [sc.ContractParam.string('after')]);
    const [filtered] = await endedRuns(owner, renamed, 1);
    expect(filtered).toMatchObject({ status: 'success', trigger: { txHash: after } });
    expect(await stateSeen(owner, echoFn, filtered!)).toEqual({ words: 'after' });
    const [latest] = await endedRuns(owner, all, 2);
    expect(latest).toMatchObject({ status: 'success', trigger: { txHash: after } });
    expect(await stateSeen(owner, echoFn, latest!)).toEqual({ words: 'after' });
  });
});

describe('the follower`s index of active watchers', () => {
  const ids = (watchers: { id: string }[]) => watchers.map((watcher) => watcher.id);

  it('sees a watcher created, paused, resumed, retyped, stopped in error or deleted at its next read, and reads no row while none changed', async () => {
    const index = new WatcherIndex('default');
    const em = () => running.api.database.orm.em.fork();
    const functionId = await echo(owner);
    const id = await watch(owner, functionId, transfersTo(freshAddress()));
    const created = await index.current(em());
    expect(ids(created)).toContain(id);
    // Nothing the follower reads changed (a rename, a run's bookkeeping): the same list, not read again.
    expect((await owner.call('PATCH', `/automations/${id}`, { name: 'renamed' })).status).toBe(200);
    await em().execute(`update "automations" set "followed_until" = 7 where "id" = ?`, [id]);
    expect(await index.current(em())).toBe(created);

    expect((await owner.call('PATCH', `/automations/${id}`, { status: 'inactive' })).status).toBe(200);
    expect(ids(await index.current(em()))).not.toContain(id);
    expect((await owner.call('PATCH', `/automations/${id}`, { status: 'active' })).status).toBe(200);
    expect(ids(await index.current(em()))).toContain(id);
    const yearly = { type: 'schedule', cron: '0 0 0 1 1 *' };
    expect((await owner.call('PATCH', `/automations/${id}`, { trigger: yearly })).status).toBe(200);
    expect(ids(await index.current(em()))).not.toContain(id);
    const filtered = { ...transfersTo(freshAddress()), type: 'blockchain' };
    expect((await owner.call('PATCH', `/automations/${id}`, { trigger: filtered })).status).toBe(200);
    const retyped = (await index.current(em())).find((watcher) => watcher.id === id);
    expect(retyped?.trigger).toMatchObject({ filter: filtered.filter });
    // A write of the follower's own, by plain SQL: a contract never deployed moves it to `error`.
    await em().execute(`update "automations" set "status" = 'error' where "id" = ?`, [id]);
    expect(ids(await index.current(em()))).not.toContain(id);
    await em().execute(`update "automations" set "status" = 'active' where "id" = ?`, [id]);
    expect(ids(await index.current(em()))).toContain(id);

    expect((await owner.call('DELETE', `/automations/${id}`)).status).toBe(200);
    expect(ids(await index.current(em()))).not.toContain(id);
  });
});

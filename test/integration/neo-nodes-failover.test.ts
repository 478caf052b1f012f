import { sc, wallet } from '@cityofzion/neon-js';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { sendAndConfirm } from '../../src/chain/contract-call.ts';
import { transferCall } from '../../src/chain/nep17.ts';
import { openNetworks, type Networks } from '../../src/chain/nodes/networks.ts';
import type { Sender } from '../../src/chain/transaction.ts';
import { createLogger } from '../../src/log.ts';
import { fundFromDevWallet } from '../../src/stack/dev-funder.ts';
import { automationsClient, gasHash, settled } from '../support/automations.ts';
import { fundedSender, senderAddress } from '../support/contracts.ts';
import { issueKey } from '../support/keys.ts';
import { until } from '../support/polling.ts';
import { startRpcProxy, type RpcProxy } from '../support/rpc-proxy.ts';
import { startApiWithWorker, type RunningWorker } from '../support/worker.ts';
import type { TestApi } from '../support/api.ts';

/**
 * Issue 45: the network's one neo-go node reached through two loopback proxies, the first
 * weighing most (the primary). Its proxy closes while watched transfers are made: the follower and
 * the relays move to the other, and nothing is skipped, repeated or read twice.
 */
const transfers = 20;
const closeAfter = 5;

let first: RpcProxy;
let second: RpcProxy;
let networks: Networks;
let api: TestApi;
let worker: RunningWorker;
let sender: Sender;
const nodes = () => [
  { url: first.url, weight: 100 },
  { url: second.url, weight: 1 },
];

beforeAll(async () => {
  [first, second] = await Promise.all([startRpcProxy(inject('neoRpcUrl')), startRpcProxy(inject('neoRpcUrl'))]);
  // The test's own relays go through a pool of the same two nodes.
  networks = await openNetworks([{ name: 'default', nodes: nodes() }], { log: createLogger('failover-test', 'error') });
  const env = { NEOFLOW_NETWORKS: JSON.stringify([{ name: 'default', rpc: nodes() }]), NEO_RPC_URL: '' };
  ({ api, worker } = await startApiWithWorker({ hostWorker: false, env }));
  sender = await fundedSender(inject('neoRpcUrl'), inject('devWallet'), 10n);
  // Every move of a cursor, as PostgreSQL saw it.
  const sql = api.database.orm.em.getConnection();
  await sql.execute('create table "cursor_moves" ("at" serial primary key, "from_index" int, "to_index" int)');
  await sql.execute(`create function note_cursor_move() returns trigger language plpgsql as $$
    begin
      insert into "cursor_moves" ("from_index", "to_index") values (old."next_index", new."next_index");
      return new;
    end $$`);
  await sql.execute(`create trigger note_cursor_move after update on "block_cursors"
    for each row execute function note_cursor_move()`);
}, 180_000);
afterAll(async () => {
  networks?.close();
  await worker?.stop();
  await api?.close();
  await Promise.all([first, second].map((proxy) => proxy?.close()));
});

const freshAddress = () => new wallet.Account(wallet.generatePrivateKey()).address;

describe('failover between two nodes of one network', () => {
  it('gives each of 20 watched transfers exactly one run while the primary`s proxy closes, its cursor never going back or skipping a block, and relays through the other node', async () => {
    const { key } = await issueKey(api.database.orm);
    const client = automationsClient(api.url, key);
    const recipient = freshAddress();
    const functionId = await client.deploy('module.exports = async (context) => context.params.trigger;');
    const automationId = await client.create({
      name: 'failover transfers',
      trigger: { type: 'blockchain', scriptHash: gasHash, event: 'Transfer', filter: { to: recipient } },
      action: { type: 'function', functionId },
    });
    expect(networks.first.probing.primary?.url).toBe(first.url);
    const sent: string[] = [];
    const started = Date.now();
    for (let index = 0; index < transfers; index++) {
      if (index === closeAfter) await first.close();
      // Half from the dev wallet straight to neo-go, half relayed by the pool: after the close,
      // relayed while the pool's first node is down.
      sent.push(
        index % 2 === 0
          ? await fundFromDevWallet(inject('neoRpcUrl'), inject('devWallet'), recipient, 1n)
          : await sendAndConfirm(
              networks.first,
              sc.createScript(transferCall('GAS', senderAddress(sender), recipient, 1n)),
              sender,
            ),
      );
    }
    const spentMs = Date.now() - started;
    const runs = await until(
      () => client.runs(automationId),
      (listed) => listed.length >= transfers && settled(listed),
      90_000,
    );
    const sql = api.database.orm.em.fork().getConnection();
    const keys = await sql.execute<{ fire_key: string; block_index: number }[]>(
      `select "fire_key", ("trigger"->>'blockIndex')::int as "block_index" from "automation_runs" where "automation_id" = ?`,
      [automationId],
    );
    expect(runs).toHaveLength(transfers);
    expect(keys.map((row) => row.fire_key).sort()).toEqual(sent.map((hash) => `event:${hash}:0`).sort());
    const moves = await sql.execute<{ from_index: number; to_index: number }[]>(
      'select "from_index", "to_index" from "cursor_moves" order by "at"',
    );
    // One move a block, from before the first transfer's block past the last one's: several
    // transfers may share a block, so the moves are counted by the blocks they span.
    const blocks = keys.map((row) => row.block_index);
    expect(moves[0]!.from_index).toBeLessThanOrEqual(Math.min(...blocks));
    expect(moves.at(-1)!.to_index).toBeGreaterThan(Math.max(...blocks));
    expect(moves.filter((move) => move.to_index !== move.from_index + 1)).toEqual([]);
    expect(moves.slice(1).filter((move, index) => move.from_index !== moves[index]!.to_index)).toEqual([]);
    // The pools moved to the second node, and the first is shown down.
    expect(networks.first.probing.primary?.url).toBe(second.url);
    const health = (await (await fetch(`${api.url}/v1/health`)).json()) as {
      neo: { networks: { nodes: { url: string; status: string; primary: boolean }[] }[] };
    };
    expect(health.neo.networks[0]!.nodes).toMatchObject([
      { url: first.url, status: 'down', primary: false },
      { url: second.url, status: 'ok', primary: true },
    ]);
    console.log(`${transfers} transfers in ${spentMs} ms, the primary closed after ${closeAfter}`);
  }, 240_000);
});

import { wallet } from '@cityofzion/neon-js';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { followerId } from '../../src/automations/blocks/follower.control.ts';
import { createNeoRpc } from '../../src/chain/rpc.ts';
import { fundFromDevWallet } from '../../src/stack/dev-funder.ts';
import { automationsClient, gasHash, settled } from '../support/automations.ts';
import { issueKey } from '../support/keys.ts';
import { until } from '../support/polling.ts';
import { startRpcProxy, type RpcProxy } from '../support/rpc-proxy.ts';
import { startApiWithWorker, type RunningWorker } from '../support/worker.ts';
import type { TestApi } from '../support/api.ts';

/**
 * Issue 45: one network over two nodes (loopback proxies in front of the tests' neo-go) with
 * NEOFLOW_BLOCK_AGREEMENT=2. The second starts answering another hash for every block from some
 * height on: the follower stops at that block and fires nothing, `/v1/health` shows why, and once
 * the node gives the chain's hashes again the follower goes on from there, skipping nothing.
 */
const neoGo = () => createNeoRpc(inject('neoRpcUrl'));

let honest: RpcProxy;
let liar: RpcProxy;
let api: TestApi;
let worker: RunningWorker;
let taskQueue: string;

beforeAll(async () => {
  [honest, liar] = await Promise.all([startRpcProxy(inject('neoRpcUrl')), startRpcProxy(inject('neoRpcUrl'))]);
  const env = {
    NEOFLOW_NETWORKS: JSON.stringify([{ name: 'default', rpc: [honest.url, liar.url] }]),
    NEOFLOW_BLOCK_AGREEMENT: '2',
    NEO_RPC_URL: '',
  };
  ({ api, worker, taskQueue } = await startApiWithWorker({ hostWorker: false, env }));
}, 180_000);
afterAll(async () => {
  await worker?.stop();
  await api?.close();
  await Promise.all([honest, liar].map((proxy) => proxy?.close()));
});

const freshAddress = () => new wallet.Account(wallet.generatePrivateKey()).address;

interface NetworkHealth {
  status: string;
  reason?: string;
}
const networkHealth = async () => {
  const body = (await (await fetch(`${api.url}/v1/health`)).json()) as { neo: { networks: NetworkHealth[] } };
  return body.neo.networks[0]!;
};

describe('two nodes that must agree on every block', () => {
  it('stops the follower at the first block they disagree on, firing nothing, shows it degraded, and fires the transfer`s run once when they agree again', async () => {
    const { key } = await issueKey(api.database.orm);
    const client = automationsClient(api.url, key);
    const recipient = freshAddress();
    const functionId = await client.deploy('module.exports = async (context) => context.params.trigger;');
    const automationId = await client.create({
      name: 'agreed transfers',
      trigger: { type: 'blockchain', scriptHash: gasHash, event: 'Transfer', filter: { to: recipient } },
      action: { type: 'function', functionId },
    });
    const sql = api.database.orm.em.fork().getConnection();
    const cursor = async () =>
      (await sql.execute<{ next_index: number }[]>('select "next_index" from "block_cursors"'))[0]?.next_index ?? -1;
    // The follower at the chain's head before the node starts lying.
    await until(
      async () => (await cursor()) >= (await neoGo().getBlockCount()) - 1,
      (atHead) => atHead,
      60_000,
    );
    const lieFrom = await neoGo().getBlockCount();
    liar.behaviour.lieFrom = lieFrom;
    const transfer = await fundFromDevWallet(inject('neoRpcUrl'), inject('devWallet'), recipient, 1n);
    const transferBlock = (await neoGo().getBlock((await neoGo().getTransaction(transfer)).blockhash!)).index;
    expect(transferBlock).toBeGreaterThanOrEqual(lieFrom);

    const reason = `nodes disagree on block ${lieFrom}: the follower stops there`;
    const degraded = await until(networkHealth, (network) => network.reason === reason, 30_000);
    expect(degraded).toMatchObject({ status: 'degraded', reason });
    // The follower's round fails at that block again and again (its failure's message is encoded),
    // the chain going on past the transfer.
    const magic = await createNeoRpc(honest.url).getNetworkMagic();
    const follower = api.services.temporal.client.workflow.getHandle(followerId(String(magic), taskQueue));
    await until(
      async () => (await follower.describe()).raw.pendingActivities?.[0]?.attempt ?? 0,
      (attempt) => attempt >= 3,
      60_000,
    );
    await until(
      () => neoGo().getBlockCount(),
      (count) => count > transferBlock + 1,
      30_000,
    );
    expect(await cursor()).toBe(lieFrom);
    expect(await client.runs(automationId)).toEqual([]);

    liar.behaviour.lieFrom = undefined;
    const runs = await until(
      () => client.runs(automationId),
      (listed) => listed.length >= 1 && settled(listed),
      60_000,
    );
    await until(cursor, (next) => next > transferBlock, 30_000);
    expect(await client.runs(automationId)).toHaveLength(1);
    expect(runs[0]).toMatchObject({ status: 'success' });
    const [fired] = await sql.execute<{ fire_key: string }[]>(
      'select "fire_key" from "automation_runs" where "automation_id" = ?',
      [automationId],
    );
    expect(fired?.fire_key).toBe(`event:${transfer}:0`);
    const healed = await until(networkHealth, (network) => network.status === 'ok', 30_000);
    expect(healed.reason).toBeUndefined();
  }, 240_000);
});

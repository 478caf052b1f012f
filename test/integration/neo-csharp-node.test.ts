import { sc, wallet } from '@cityofzion/neon-js';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { readBlockNotifications, type BlockNotifications } from '../../src/chain/blocks.ts';
import { sendAndConfirm } from '../../src/chain/contract-call.ts';
import { transferCall } from '../../src/chain/nep17.ts';
import { openNetworks, type Networks } from '../../src/chain/nodes/networks.ts';
import { createNeoRpc } from '../../src/chain/rpc.ts';
import { createLogger } from '../../src/log.ts';
import { automationsClient, fireKeysOf, gasHash, settled } from '../support/automations.ts';
import type { Sender } from '../../src/chain/transaction.ts';
import { fundedSender, senderAddress, sendFaulting } from '../support/contracts.ts';
import { issueKey } from '../support/keys.ts';
import { until } from '../support/polling.ts';
import { startRpcProxy, type RpcProxy } from '../support/rpc-proxy.ts';
import { startApiWithWorker, type RunningWorker } from '../support/worker.ts';
import type { TestApi } from '../support/api.ts';

/**
 * Issue 45: a network whose only node is a C# neo-cli node (emulated in front of neo-go: see
 * test/support/rpc-proxy.ts) is followed from ApplicationLogs, and every fire key is the one the
 * neo-go path gives for the same blocks; FAULTed transactions fire nothing on either.
 */
const neoGo = () => createNeoRpc(inject('neoRpcUrl'));

let proxy: RpcProxy;
let networks: Networks;
let api: TestApi;
let worker: RunningWorker;
let sender: Sender;
beforeAll(async () => {
  proxy = await startRpcProxy(inject('neoRpcUrl'), { csharp: true });
  const settings = [{ name: 'csharp', nodes: [{ url: proxy.url, weight: 1 }] }];
  networks = await openNetworks(settings, { log: createLogger('csharp-test', 'warn') });
  // NEO_RPC_URL emptied: the tests' workers name the shared node there by default.
  const env = { NEOFLOW_NETWORKS: JSON.stringify([{ name: 'csharp', rpc: [proxy.url] }]), NEO_RPC_URL: '' };
  ({ api, worker } = await startApiWithWorker({ hostWorker: false, env }));
  sender = await fundedSender(inject('neoRpcUrl'), inject('devWallet'), 50n);
}, 180_000);
afterAll(async () => {
  networks?.close();
  await worker?.stop();
  await api?.close();
  await proxy?.close();
});

/** Transfers made one after another, each in a block, while the follower is at the chain's head. */
const transfersAtHead = 8;
/** How far the follower falls behind the chain while its node is down: a catch-up past one round's 20 blocks. */
const behindBlocks = 25;
/** Requests that read a block rather than the chain's height or a contract. */
const blockReads = new Set(['getblockhash', 'getblock', 'getapplicationlog']);

/** The follower's next block to read. */
const cursor = async () =>
  (
    await api.database.orm.em
      .fork()
      .getConnection()
      .execute<{ next_index: number }[]>('select "next_index" from "block_cursors"')
  )[0]?.next_index ?? -1;
const followerAtHead = () =>
  until(
    async () => (await cursor()) >= (await neoGo().getBlockCount()),
    (atHead) => atHead,
    60_000,
  );
/** Requests of `requests` that read blocks, the polls of the height left out. */
const blockReadsOf = (requests: string[][]) =>
  requests.filter((methods) => !methods.includes('getblockcount') && methods.some((method) => blockReads.has(method)));

const freshAddress = () => new wallet.Account(wallet.generatePrivateKey()).address;
const fireKeys = (block: BlockNotifications) =>
  block.notifications.map((notification) => `event:${notification.container}:${notification.notificationIndex}`);

/**
 * Sends, from `sender`, a transaction of two GAS transfers to `recipient`, then one whose transfer
 * to `recipient` is undone by an ABORT (FAULTed, in a block all the same), then one more transfer.
 */
async function transfersWithAFault(recipient: string) {
  const neo = neoGo();
  const from = senderAddress(sender);
  const halted = [
    await sendAndConfirm(
      neo,
      sc.createScript(transferCall('GAS', from, recipient, 1n), transferCall('GAS', from, recipient, 2n)),
      sender,
    ),
  ];
  const faulted = await sendFaulting(neo, sc.createScript(transferCall('GAS', from, recipient, 3n)) + '38', sender);
  halted.push(await sendAndConfirm(neo, sc.createScript(transferCall('GAS', from, recipient, 4n)), sender));
  return { halted, faulted };
}

/** An automation of a new key's account whose function runs for each GAS transfer to a new address. */
async function watchTransfers(name: string) {
  const { key } = await issueKey(api.database.orm);
  const client = automationsClient(api.url, key);
  const recipient = freshAddress();
  const functionId = await client.deploy('module.exports = async (context) => context.params.trigger;');
  const automationId = await client.create({
    name,
    trigger: { type: 'blockchain', scriptHash: gasHash, event: 'Transfer', filter: { to: recipient } },
    action: { type: 'function', functionId },
  });
  return { client, recipient, automationId };
}

/** The fire keys the neo-go path gives the transactions' Transfers, read by getblocknotifications. */
async function neoGoTransferKeys({ halted, faulted }: { halted: string[]; faulted: string }) {
  const keys: string[] = [];
  for (const hash of [...halted, faulted]) {
    const { blockhash } = await neoGo().getTransaction(hash);
    const block = await readBlockNotifications(neoGo(), (await neoGo().getBlock(blockhash!)).index);
    keys.push(
      ...block.notifications
        .filter((notification) => notification.txHash === hash && notification.eventName === 'Transfer')
        .map((notification) => `event:${notification.container}:${notification.notificationIndex}`),
    );
  }
  return keys;
}

/** The watcher's runs, once settled, are one per HALTed transfer of `sent`, with the neo-go path's keys. */
async function expectNeoGoKeys(
  { client, automationId }: { client: ReturnType<typeof automationsClient>; automationId: string },
  sent: { halted: string[]; faulted: string },
) {
  const expected = await neoGoTransferKeys(sent);
  expect(expected).toHaveLength(3);
  await until(
    () => client.runs(automationId),
    (runs) => runs.length >= 3 && settled(runs),
    60_000,
  );
  expect(await fireKeysOf(api, automationId)).toEqual(expected.sort());
}

describe('a C# node (neo-cli with ApplicationLogs)', () => {
  it('is detected as such by its probe: -32601 to getblocknotifications, ApplicationLogs listed', () => {
    expect(networks.report()[0]!.nodes[0]).toMatchObject({ status: 'ok', kind: 'csharp' });
  });

  it('gives every block`s notifications exactly as neo-go`s getblocknotifications, FAULTed transactions left out', async () => {
    const recipient = freshAddress();
    const from = await neoGo().getBlockCount();
    const probesOnly = proxy.methods.filter((method) => method === 'getblocknotifications').length;
    const { halted, faulted } = await transfersWithAFault(recipient);
    const last = (await neoGo().getTransaction(halted.at(-1)!)).blockhash!;
    const through = (await neoGo().getBlock(last)).index;
    const keysOfBoth: string[] = [];
    for (let index = from; index <= through; index++) {
      const [ofNeoGo, ofCSharp] = [
        await readBlockNotifications(neoGo(), index),
        await readBlockNotifications(networks.first, index),
      ];
      expect(ofCSharp).toEqual(ofNeoGo);
      keysOfBoth.push(...fireKeys(ofCSharp));
    }
    // The FAULTed transaction's log keeps its Transfer, which both paths leave out.
    const faultLog = await neoGo().getApplicationLog(faulted);
    expect(faultLog.executions[0]).toMatchObject({ vmstate: 'FAULT' });
    expect(faultLog.executions[0]!.notifications?.length).toBeGreaterThan(0);
    expect(keysOfBoth.filter((key) => key.includes(faulted))).toEqual([]);
    expect(keysOfBoth).toEqual(
      expect.arrayContaining([`event:${halted[0]}:0`, `event:${halted[0]}:1`, `event:${halted[1]}:0`]),
    );
    // Never through neo-go's method: the C# node has none.
    expect(proxy.methods.filter((method) => method === 'getblocknotifications')).toHaveLength(probesOnly);
  });

  it('reads the newest block again after its log answered -32602 ("not yet"), never skipping it', async () => {
    const before = proxy.notYetAnswers;
    const count = await networks.first.getBlockCount();
    await until(
      () => neoGo().getBlockCount(),
      (height) => height > count,
      20_000,
    );
    const newest = await readBlockNotifications(networks.first, count);
    expect(newest).toEqual(await readBlockNotifications(neoGo(), count));
    expect(proxy.notYetAnswers).toBeGreaterThan(before);
  });

  it('fires a watcher`s runs with the fire keys of the neo-go path, one per HALTed transfer, none for the FAULTed one', async () => {
    const { client, recipient, automationId } = await watchTransfers('csharp transfers');
    await expectNeoGoKeys({ client, automationId }, await transfersWithAFault(recipient));
  });

  it('reads each block at the head in one request to the node, the polls of its height counted apart', async () => {
    // Each newest block's log answered at once: its -32602 read again is the test above's.
    proxy.behaviour.lateLogs = false;
    const { client, recipient, automationId } = await watchTransfers('csharp round trips');
    await followerAtHead();
    const [fromBlock, fromRequest] = [await cursor(), proxy.requests.length];
    const from = senderAddress(sender);
    const sent: string[] = [];
    for (let index = 0; index < transfersAtHead; index++) {
      sent.push(await sendAndConfirm(neoGo(), sc.createScript(transferCall('GAS', from, recipient, 1n)), sender));
    }
    const lastBlock = (await neoGo().getBlock((await neoGo().getTransaction(sent.at(-1)!)).blockhash!)).index;
    await until(cursor, (next) => next > lastBlock, 30_000);
    const [toBlock, requests] = [await cursor(), proxy.requests.slice(fromRequest)];
    const blocks = toBlock - fromBlock;
    const polls = requests.filter((methods) => methods.includes('getblockcount'));
    const reads = blockReadsOf(requests);
    console.log(
      `C# node at the head: ${blocks} blocks (${transfersAtHead} with a transfer) read in ${reads.length} requests ` +
        `(${(reads.length / blocks).toFixed(2)} a block), ${polls.length} polls of the height`,
    );
    // One a block; the next block's read may have begun when the cursor was read.
    expect(reads.length).toBeLessThanOrEqual(blocks + 1);
    const runs = await until(
      () => client.runs(automationId),
      (listed) => listed.length >= transfersAtHead && settled(listed),
      60_000,
    );
    expect(runs).toHaveLength(transfersAtHead);
  }, 120_000);

  it('catches up 25 blocks behind after its node was down in far fewer requests than blocks, with the neo-go path`s runs and keys', async () => {
    // The newest block's log answered -32602 once again: a block read ahead so is read in its turn.
    proxy.behaviour.lateLogs = true;
    const { client, recipient, automationId } = await watchTransfers('csharp catch-up');
    await followerAtHead();
    await proxy.close();
    const behindFrom = await cursor();
    const sent = await transfersWithAFault(recipient);
    await until(
      () => neoGo().getBlockCount(),
      (height) => height >= behindFrom + behindBlocks,
      60_000,
    );
    const fromRequest = proxy.requests.length;
    await proxy.reopen();
    const tip = await neoGo().getBlockCount();
    // Requests counted up to the moment the follower is seen at the tip it had to reach.
    const caughtUp = await until(
      async () => ({ next: await cursor(), requests: proxy.requests.length }),
      ({ next }) => next >= tip,
      90_000,
    );
    const blocks = caughtUp.next - behindFrom;
    const reads = blockReadsOf(proxy.requests.slice(fromRequest, caughtUp.requests));
    console.log(
      `C# node, catching up: ${blocks} blocks read in ${reads.length} requests ` +
        `(${(reads.length / blocks).toFixed(2)} a block; ${Math.max(...reads.map((methods) => methods.length))} calls in the largest)`,
    );
    expect(blocks).toBeGreaterThanOrEqual(behindBlocks);
    // About one request per 16 blocks behind the tip, one a block at it; one a block before.
    expect(reads.length).toBeLessThanOrEqual(Math.ceil(blocks / 4));
    await expectNeoGoKeys({ client, automationId }, sent);
  }, 240_000);
});

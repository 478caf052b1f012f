import { CONST, sc, u, wallet } from '@cityofzion/neon-js';
import { describe, expect, it } from 'vitest';
import type { BlockchainTrigger, TransactionTrigger } from '../../src/automations/model/trigger.schemas.ts';
import {
  firingsOfBlock,
  withTransactions,
  type EventAbi,
  type Watcher,
} from '../../src/automations/blocks/block-matching.ts';
import type { NeoRpc } from '../../src/chain/rpc.ts';
import type { BlockNotification, BlockNotifications } from '../../src/chain/blocks.ts';

const alice = new wallet.Account('7d128a6d096f0c14c3a25a2b0c41cf79661bfcb4a8cc95aaaea28bde4d732344');
const bob = new wallet.Account('9ab7e154840daca3a2efadaf0df93cd3a5b51768c632f5433f86909d9b994a69');
const gas = `0x${CONST.NATIVE_CONTRACT_HASH.GasToken}`;
const neo = `0x${CONST.NATIVE_CONTRACT_HASH.NeoToken}`;
const account = (who: { scriptHash: string }) => ({
  type: 'ByteString',
  value: u.hex2base64(u.reverseHex(who.scriptHash)),
});

const abi: EventAbi = {
  parameters: async (_contract, eventName) =>
    eventName === 'Transfer'
      ? [
          { name: 'from', type: 'Hash160' },
          { name: 'to', type: 'Hash160' },
          { name: 'amount', type: 'Integer' },
        ]
      : null,
};

const tx = `0x${'ab'.repeat(32)}`;
const blockHash = `0x${'cd'.repeat(32)}`;
const notification = (contract: string, eventName: string, index: number, container = tx): BlockNotification => ({
  blockIndex: 42,
  blockHash,
  container,
  txHash: container === blockHash ? null : container,
  notificationIndex: index,
  contract,
  eventName,
  state: { type: 'Array', value: [account(alice), account(bob), { type: 'Integer', value: String(100 + index) }] },
});

const block: BlockNotifications = {
  blockIndex: 42,
  blockHash,
  notifications: [
    notification(gas, 'Transfer', 0, blockHash),
    notification(gas, 'Transfer', 0),
    notification(neo, 'Transfer', 1),
    notification(gas, 'Transfer', 2),
    notification(gas, 'Approval', 3),
  ],
};

let ids = 0;
const watcher = (trigger: Partial<BlockchainTrigger>, watchFromBlock = 40): Watcher => ({
  id: `auto_${++ids}`,
  account: { id: 'acct_1' },
  watchFromBlock,
  trigger: { type: 'blockchain', scriptHash: gas, ...trigger },
});

describe('matching a block against blockchain automations', () => {
  it('fires once per matching notification, named by its container and index, with the decoded event', async () => {
    const gasFromAlice = watcher({
      scriptHash: gas.toUpperCase().replace('0X', '0x'),
      event: 'Transfer',
      filter: { from: alice.address },
    });
    const firings = await firingsOfBlock(block, [gasFromAlice], abi);
    expect(firings.map((firing) => firing.fireKey)).toEqual([`event:${blockHash}:0`, `event:${tx}:0`, `event:${tx}:2`]);
    expect(firings[1]!.payload).toEqual({
      type: 'blockchain',
      scriptHash: gas,
      eventName: 'Transfer',
      state: { from: `0x${alice.scriptHash}`, to: `0x${bob.scriptHash}`, amount: '100' },
      txHash: tx,
      blockHash,
      blockIndex: 42,
      notificationIndex: 0,
    });
    expect(firings[0]!.payload).toMatchObject({ txHash: null, blockHash });
  });

  it('takes every event of the contract without an event name, and none of other contracts', async () => {
    const firings = await firingsOfBlock(block, [watcher({ scriptHash: neo })], abi);
    expect(firings.map((firing) => firing.fireKey)).toEqual([`event:${tx}:1`]);
  });

  it('ignores blocks from before the automation was armed, and filters that do not match', async () => {
    const late = watcher({ scriptHash: gas }, 43);
    const toAlice = watcher({ scriptHash: gas, filter: { to: alice.address } });
    const amount = watcher({ scriptHash: gas, event: 'Transfer', filter: { amount: 102 } });
    const firings = await firingsOfBlock(block, [late, toAlice, amount], abi);
    expect(firings.map((firing) => [firing.automation.id, firing.fireKey])).toEqual([[amount.id, `event:${tx}:2`]]);
  });

  it('quarantines a notification one automation cannot decode for that automation alone: a failed run, the same fire key', async () => {
    // A Map whose entries are not key/value pairs: reading it as the ABI's Hash160 throws.
    const unreadable: BlockNotification = {
      ...notification(gas, 'Transfer', 0),
      state: { type: 'Array', value: [{ type: 'Map', value: [null] }, account(bob), { type: 'Integer', value: '1' }] },
    };
    const broken: BlockNotifications = { ...block, notifications: [unreadable, notification(neo, 'Transfer', 1)] };
    const onGas = watcher({ scriptHash: gas, event: 'Transfer' });
    const onNeo = watcher({ scriptHash: neo, event: 'Transfer' });
    const firings = await firingsOfBlock(broken, [onGas, onNeo], abi);
    expect(firings).toEqual([
      {
        automation: onGas,
        fireKey: `event:${tx}:0`,
        payload: expect.objectContaining({ type: 'blockchain', state: null, txHash: tx, notificationIndex: 0 }),
        error: {
          name: 'InputQuarantined',
          message: expect.stringMatching(
            new RegExp(
              `^Notification 0 of transaction ${tx} in block 42 could not be processed for this automation: .+`,
            ),
          ),
        },
      },
      expect.objectContaining({ automation: onNeo, fireKey: `event:${tx}:1` }),
    ]);
    expect(firings[1]).not.toHaveProperty('error');
  });
});

describe('matching a block against transaction automations', () => {
  const script = (contract: string, operation: string) =>
    Buffer.from(
      new sc.ScriptBuilder().emitContractCall({ scriptHash: contract.slice(2), operation, args: [] }).build(),
      'hex',
    ).toString('base64');
  const txOf = (index: number, from: typeof alice, contract: string, operation: string) => ({
    hash: `0x${String(index).repeat(64)}`,
    sender: from.address,
    script: script(contract, operation),
  });
  const transactions = [txOf(1, alice, gas, 'transfer'), txOf(2, bob, gas, 'transfer'), txOf(3, alice, neo, 'vote')];

  /** A node with the block above and its transactions, counting the outcomes read. */
  function chain(vmState: (hash: string) => 'HALT' | 'FAULT') {
    const read: string[] = [];
    const rpc = {
      getBlock: async () => ({ hash: blockHash, index: 42, tx: transactions }),
      getApplicationLog: async (hash: string) => {
        read.push(hash);
        return {
          executions: [
            { trigger: 'Application', vmstate: vmState(hash), gasconsumed: '0', exception: null, stack: [] },
          ],
        };
      },
    } as unknown as NeoRpc;
    return { rpc, read };
  }
  const txWatcher = (trigger: Omit<TransactionTrigger, 'type'>, watchFromBlock = 40): Watcher => ({
    id: `auto_${++ids}`,
    account: { id: 'acct_1' },
    watchFromBlock,
    trigger: { type: 'transaction', ...trigger },
  });

  it('reads outcomes only of the transactions whose sender and calls match, and fires once per transaction', async () => {
    const { rpc, read } = chain((hash) => (hash.startsWith('0x1') ? 'FAULT' : 'HALT'));
    const faults = txWatcher({ sender: alice.address, scriptHash: gas, vmState: 'FAULT' });
    const halts = txWatcher({ sender: alice.address, vmState: 'HALT' });
    const matched = await withTransactions(rpc, block, [faults, halts, watcher({ scriptHash: gas })]);
    expect(read).toEqual([transactions[0]!.hash, transactions[2]!.hash]);
    const firings = await firingsOfBlock(matched, [faults, halts], abi);
    expect(firings.map((firing) => [firing.automation.id, firing.fireKey])).toEqual([
      [faults.id, `tx:${transactions[0]!.hash}`],
      [halts.id, `tx:${transactions[2]!.hash}`],
    ]);
    expect(firings[0]!.payload).toEqual({
      type: 'transaction',
      txHash: transactions[0]!.hash,
      blockHash,
      blockIndex: 42,
      sender: `0x${alice.scriptHash}`,
      vmState: 'FAULT',
      exception: null,
      calls: [{ scriptHash: gas, operation: 'transfer' }],
    });
  });

  it('reads no transaction while no transaction trigger watches the block', async () => {
    const { rpc, read } = chain(() => 'HALT');
    const matched = await withTransactions(rpc, block, [
      watcher({ scriptHash: gas }),
      txWatcher({ sender: alice.address }, 43),
    ]);
    expect(matched).toBe(block);
    expect(read).toEqual([]);
  });
});

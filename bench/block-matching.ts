/**
 * The block follower's matching alone (block-matching.ts `firingsOfBlock`), in this process: the
 * watchers of `bench:scale` at 10,000 automations (4,000, all on GAS Transfer, `nonMatchingWatcher`)
 * against a block of 10 GAS Transfer notifications, as a block of the bench has them: transfers to
 * its recipient, their fee burns, the validators' mint. Prints milliseconds a block.
 */
import { randomBytes } from 'node:crypto';
import { u, wallet } from '@cityofzion/neon-js';
import type { FollowedTrigger } from '../src/automations/model/trigger.schemas.ts';
import { firingsOfBlock, type EventAbi, type Watcher } from '../src/automations/blocks/block-matching.ts';
import type { BlockNotification, BlockNotifications } from '../src/chain/blocks.ts';
import type { StackItem } from '../src/chain/stack-item.ts';
import { GAS, nonMatchingWatcher } from './automation-runs.ts';

const watcherCount = Number(process.env.BENCH_WATCHERS ?? 4_000);
const blocks = Number(process.env.BENCH_BLOCKS ?? 200);

const recipient = wallet.getAddressFromScriptHash(randomBytes(20).toString('hex'));
const watchers: Watcher[] = Array.from({ length: watcherCount }, (_, i) => ({
  id: `auto_${i}`,
  account: { id: 'acct_1' },
  trigger: nonMatchingWatcher(recipient)(i) as FollowedTrigger,
  watchFromBlock: 0,
}));

const abi: EventAbi = {
  parameters: async () => [
    { name: 'from', type: 'Hash160' },
    { name: 'to', type: 'Hash160' },
    { name: 'amount', type: 'Integer' },
  ],
};

const account = (address: string): StackItem => ({
  type: 'ByteString',
  value: u.hex2base64(u.reverseHex(wallet.getScriptHashFromAddress(address))),
});
const nobody: StackItem = { type: 'Any' };
const randomAccount = () => account(wallet.getAddressFromScriptHash(randomBytes(20).toString('hex')));

function block(index: number): BlockNotifications {
  const blockHash = `0x${randomBytes(32).toString('hex')}`;
  const transfer = (i: number, from: StackItem, to: StackItem): BlockNotification => {
    const container = `0x${randomBytes(32).toString('hex')}`;
    const state: StackItem = { type: 'Array', value: [from, to, { type: 'Integer', value: '100000000' }] };
    return {
      blockIndex: index,
      blockHash,
      container,
      txHash: container,
      notificationIndex: i,
      contract: GAS,
      eventName: 'Transfer',
      state,
    };
  };
  const senders = Array.from({ length: 4 }, randomAccount);
  const notifications = [
    ...senders.flatMap((sender) => [transfer(0, sender, nobody), transfer(1, sender, account(recipient))]),
    transfer(0, randomAccount(), randomAccount()),
    transfer(0, nobody, randomAccount()),
  ];
  return { blockIndex: index, blockHash, notifications };
}

const first = performance.now();
await firingsOfBlock(block(0), watchers, abi);
const firstMs = performance.now() - first;
const sample = Array.from({ length: blocks }, (_, i) => block(i + 1));
const began = performance.now();
let fired = 0;
for (const each of sample) fired += (await firingsOfBlock(each, watchers, abi)).length;
const perBlockMs = (performance.now() - began) / blocks;
console.log(
  `${watcherCount} watchers × ${sample[0]!.notifications.length} GAS Transfers: first block ${firstMs.toFixed(1)} ms, ` +
    `then ${perBlockMs.toFixed(2)} ms a block over ${blocks} blocks (${fired / blocks} firings a block)`,
);

/**
 * The block follower's matching (block-matching.ts `firingsOfBlock`) when watchers' filters name
 * many accounts: 1,000 GAS Transfer watchers (10 accounts of 100), each an `anyOf` of 16 filters
 * with `in` lists naming 300 addresses in all, over 300,000 distinct addresses ("wide"), against
 * the same watchers over 100 addresses ("narrow", the floor). Blocks of 10 Transfers naming none of
 * them, so every watcher compares every notification with its filters and no firing is made. The
 * two sets are matched block by block, alternated, in one process; CPU (user + system) a block.
 * Prints each set's first block (the triggers parsed, their addresses decoded) and the mean of the
 * rest, and their ratio: within 2x is the bar (issue 44).
 */
import { createHash, randomBytes } from 'node:crypto';
import { CONST, u, wallet } from '@cityofzion/neon-js';
import { firingsOfBlock, type EventAbi, type Watcher } from '../src/automations/blocks/block-matching.ts';
import type { Filter } from '../src/automations/model/filter.schemas.ts';
import type { BlockNotification, BlockNotifications } from '../src/chain/blocks.ts';
import type { StackItem } from '../src/chain/stack-item.ts';
import { GAS } from './automation-runs.ts';

const watcherCount = 1_000;
const addressesEach = 300;
const blocks = Number(process.env.BENCH_BLOCKS ?? 40);

const alphabet = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';

/** An N3 address for a random script hash, encoded here: neon-js takes ~0.2 ms an address. */
function randomAddress(): string {
  const payload = Buffer.concat([Buffer.from([CONST.DEFAULT_ADDRESS_VERSION]), randomBytes(20)]);
  const checksum = createHash('sha256').update(createHash('sha256').update(payload).digest()).digest();
  const bytes = Buffer.concat([payload, checksum.subarray(0, 4)]);
  // Base58: the bytes as one big-endian number, in base 58 (the first byte is not zero: no leading 1).
  const digits: number[] = [];
  for (const byte of bytes) {
    let carry = byte;
    for (let at = 0; at < digits.length; at++) {
      carry += digits[at]! * 256;
      digits[at] = carry % 58;
      carry = Math.floor(carry / 58);
    }
    for (; carry > 0; carry = Math.floor(carry / 58)) digits.push(carry % 58);
  }
  const text = digits
    .reverse()
    .map((digit) => alphabet[digit])
    .join('');
  return text;
}

// The encoding above is what neon-js would give.
const probe = randomAddress();
if (wallet.getAddressFromScriptHash(wallet.getScriptHashFromAddress(probe)) !== probe) throw new Error('bad address');

/** 300 values in 16 filters: `from` in 16 listed accounts, and for the first three `to` in up to 16 more. */
function anyOf(next: () => string): Filter[] {
  let left = addressesEach - 16 * 16;
  return Array.from({ length: 16 }, () => {
    const filter: Filter = { from: { in: Array.from({ length: 16 }, next) } };
    const more = Math.min(16, left);
    left -= more;
    if (more > 0) filter.to = { in: Array.from({ length: more }, next) };
    return filter;
  });
}

function watchers(next: () => string): Watcher[] {
  return Array.from({ length: watcherCount }, (_, i) => ({
    id: `auto_${i}`,
    account: { id: `acct_${i % 10}` },
    trigger: { type: 'blockchain', scriptHash: GAS, event: 'Transfer', anyOf: anyOf(next) },
    watchFromBlock: 0,
  }));
}

const began = performance.now();
const wide = watchers(randomAddress);
const pool = Array.from({ length: 100 }, randomAddress);
let drawn = 0;
const narrow = watchers(() => pool[drawn++ % pool.length]!);
const distinct = new Set(wide.flatMap((watcher) => JSON.stringify(watcher.trigger).match(/N[1-9A-Za-z]{33}/g)!));
console.log(`${distinct.size} distinct addresses made in ${((performance.now() - began) / 1000).toFixed(1)} s`);

const abi: EventAbi = {
  parameters: async () => [
    { name: 'from', type: 'Hash160' },
    { name: 'to', type: 'Hash160' },
    { name: 'amount', type: 'Integer' },
  ],
};
const account = (): StackItem => ({ type: 'ByteString', value: u.hex2base64(randomBytes(20).toString('hex')) });

function block(index: number): BlockNotifications {
  const blockHash = `0x${randomBytes(32).toString('hex')}`;
  const notifications = Array.from({ length: 10 }, (_, i): BlockNotification => {
    const container = `0x${randomBytes(32).toString('hex')}`;
    return {
      blockIndex: index,
      blockHash,
      container,
      txHash: container,
      notificationIndex: i,
      contract: GAS,
      eventName: 'Transfer',
      state: { type: 'Array', value: [account(), account(), { type: 'Integer', value: '100000000' }] },
    };
  });
  return { blockIndex: index, blockHash, notifications };
}

/** CPU milliseconds (user + system) matching one block against `set`. */
async function cpuOf(each: BlockNotifications, set: Watcher[]): Promise<number> {
  const start = process.cpuUsage();
  const fired = await firingsOfBlock(each, set, abi);
  const used = process.cpuUsage(start);
  if (fired.length > 0) throw new Error('a block of the benchmark fired');
  return (used.user + used.system) / 1000;
}

const firstNarrow = await cpuOf(block(0), narrow);
const firstWide = await cpuOf(block(0), wide);
const spent = { narrow: [] as number[], wide: [] as number[] };
for (let i = 1; i <= blocks; i++) {
  const each = block(i);
  // Alternated, and which goes first alternates too: load and GC fall on both alike.
  const order = i % 2 === 0 ? (['narrow', 'wide'] as const) : (['wide', 'narrow'] as const);
  for (const set of order) spent[set].push(await cpuOf(each, set === 'wide' ? wide : narrow));
}
const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
const ratio = mean(spent.wide) / mean(spent.narrow);
console.log(
  `first block (triggers parsed): narrow ${firstNarrow.toFixed(0)} ms, wide ${firstWide.toFixed(0)} ms CPU\n` +
    `then over ${blocks} alternated blocks: narrow ${mean(spent.narrow).toFixed(2)} ms, ` +
    `wide ${mean(spent.wide).toFixed(2)} ms CPU a block: ratio ${ratio.toFixed(2)} ` +
    `(${ratio <= 2 ? 'PASS' : 'FAIL'}: within 2x)`,
);

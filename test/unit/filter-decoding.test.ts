import { randomBytes } from 'node:crypto';
import { CONST, u, wallet } from '@cityofzion/neon-js';
import { describe, expect, it, vi } from 'vitest';
import { firingsOfBlock, type EventAbi, type Watcher } from '../../src/automations/blocks/block-matching.ts';
import type { Filter } from '../../src/automations/model/filter.schemas.ts';
import { triggerSchema } from '../../src/automations/model/trigger.schemas.ts';
import type * as contractArgs from '../../src/chain/contract-args.ts';
import { normalizeHash160 } from '../../src/chain/contract-args.ts';
import type { BlockNotification } from '../../src/chain/blocks.ts';
import type { StackItem } from '../../src/chain/stack-item.ts';

// Every decoding of an address or script hash a filter names, counted by value.
vi.mock('../../src/chain/contract-args.ts', async (importOriginal) => {
  const actual = await importOriginal<typeof contractArgs>();
  return { ...actual, normalizeHash160: vi.fn(actual.normalizeHash160) };
});

const gas = `0x${CONST.NATIVE_CONTRACT_HASH.GasToken}`;
const abi: EventAbi = {
  parameters: async () => [
    { name: 'from', type: 'Hash160' },
    { name: 'to', type: 'Hash160' },
    { name: 'amount', type: 'Integer' },
  ],
};
const randomHash = () => randomBytes(20).toString('hex');
const account = (scriptHash: string): StackItem => ({
  type: 'ByteString',
  value: u.hex2base64(u.reverseHex(scriptHash)),
});

function transfer(index: number): BlockNotification {
  const container = `0x${randomBytes(32).toString('hex')}`;
  return {
    blockIndex: 1,
    blockHash: `0x${'ab'.repeat(32)}`,
    container,
    txHash: container,
    notificationIndex: index,
    contract: gas,
    eventName: 'Transfer',
    state: { type: 'Array', value: [account(randomHash()), account(randomHash()), { type: 'Integer', value: '1' }] },
  };
}

describe('filter values are normalised once per trigger', () => {
  // 11,200 values, some made by neon-js and all read as accounts: seconds on a loaded machine.
  it('decodes each address an anyOf/in filter names once per trigger, past 10,000 distinct addresses and over many notifications', async () => {
    // 700 triggers of 16 distinct values each: more than the 10,000 a process-wide memo held.
    const watchers: Watcher[] = Array.from({ length: 700 }, (_, i) => {
      // Addresses and script hashes alike: each is a value to read as an account.
      const value = (j: number) => (j % 4 === 0 ? wallet.getAddressFromScriptHash(randomHash()) : `0x${randomHash()}`);
      const listed = (from: number) => Array.from({ length: 8 }, (_, j) => value(from + j));
      return {
        id: `auto_${i}`,
        account: { id: `acct_${i % 7}` },
        trigger: {
          type: 'blockchain',
          scriptHash: gas,
          anyOf: [{ from: { in: listed(0) } }, { to: { in: listed(8) } }] as Filter[],
        },
        watchFromBlock: 0,
      };
    });
    const decode = vi.mocked(normalizeHash160);
    decode.mockClear();
    // No notification names a listed account: every value is compared with every notification.
    for (let block = 0; block < 3; block++) {
      const notifications = Array.from({ length: 4 }, (_, i) => transfer(i));
      expect(
        await firingsOfBlock({ blockIndex: 1, blockHash: `0x${'ab'.repeat(32)}`, notifications }, watchers, abi),
      ).toEqual([]);
    }
    const decodings = Map.groupBy(decode.mock.calls, ([value]) => value);
    expect(decodings.size).toBe(700 * 16);
    expect(Math.max(...[...decodings.values()].map((calls) => calls.length))).toBe(1);
  }, 60_000);

  it('decodes an account named twice by one trigger once', async () => {
    const alice = wallet.getAddressFromScriptHash(randomHash());
    const watcher: Watcher = {
      id: 'auto_1',
      account: { id: 'acct_1' },
      trigger: {
        type: 'blockchain',
        scriptHash: gas,
        filter: { from: { ne: alice } },
        anyOf: [{ to: alice }, { to: { in: [alice] } }],
      },
      watchFromBlock: 0,
    };
    const decode = vi.mocked(normalizeHash160);
    decode.mockClear();
    await firingsOfBlock(
      { blockIndex: 1, blockHash: `0x${'ab'.repeat(32)}`, notifications: [transfer(0), transfer(1)] },
      [watcher],
      abi,
    );
    expect(decode.mock.calls.filter(([value]) => value === alice)).toHaveLength(1);
  });
});

describe('the values a trigger filters on, in all', () => {
  const issue = (trigger: Record<string, unknown>) => {
    const parsed = triggerSchema.safeParse({ type: 'blockchain', scriptHash: gas, ...trigger });
    return parsed.success ? null : parsed.error.issues.map((one) => `${one.path.join('.')}: ${one.message}`).join('; ');
  };
  // 16 filters of 2 keys, each an in of `valuesEach` values.
  const filters = (valuesEach: number) =>
    Array.from({ length: 16 }, () =>
      Object.fromEntries(Array.from({ length: 2 }, (_, k) => [`k${k}`, { in: Array(valuesEach).fill('x') }])),
    );

  it('takes 512 values across filter and anyOf', () => {
    expect(issue({ anyOf: filters(16) })).toBeNull();
  });

  it('refuses a 513th, naming anyOf', () => {
    expect(issue({ anyOf: filters(16), filter: { amount: { gt: '1' } } })).toMatch(/^anyOf: .*at most 512 values/);
  });
});

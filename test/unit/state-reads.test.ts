import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { maxArgsBytes } from '../../src/chain/contract-args.ts';
import { NeoRpcError, type NeoRpc } from '../../src/chain/rpc.ts';
import type { Invocation } from '../../src/chain/stack-item.ts';
import { StateReader, stateReadLimits, type Read } from '../../src/automations/blocks/state-reads.ts';

// The lanes of the state triggers' reads (issue 44), against a node whose answers the test chooses
// by operation: `slow` answers after the caller gives up, `refused` with an HTTP status.

const halt: Invocation = { state: 'HALT', gasconsumed: '1', exception: null, stack: [{ type: 'Integer', value: '1' }] };

function fakeNode(slowMs = 10_000) {
  const calls: string[] = [];
  const neo = {
    invokeFunction: async (_hash: string, operation: string, _args: unknown[], signal?: AbortSignal) => {
      calls.push(operation);
      if (operation === 'refused') throw new NeoRpcError('invokefunction', 'HTTP 413');
      if (operation === 'unreachable') throw new TypeError('fetch failed');
      if (operation === 'slow') {
        await sleep(slowMs, undefined, { signal });
      }
      return halt;
    },
  } as unknown as NeoRpc;
  return { neo, calls };
}

const key = (operation: string, n = 0) =>
  JSON.stringify([`0x${'ab'.repeat(20)}`, operation, [{ type: 'Integer', value: String(n) }]]);

const limits = { ...stateReadLimits, readDeadlineMs: 200, blockBudgetMs: 150 };

describe('the state reads of a block', () => {
  it("deadline a slow account's read, stop its lane and pause it, while another account's reads answer at once", async () => {
    const { neo, calls } = fakeNode();
    const reader = new StateReader(neo, limits);
    const session = reader.session(100);
    const started = performance.now();
    const [slow, fast] = await Promise.all([
      reader.readLane(session, { account: 'hostile', keys: [key('slow', 1), key('slow', 2), key('slow', 3)] }),
      reader.readLane(session, { account: 'other', keys: [key('balanceOf')] }).then((reads) => {
        expect(performance.now() - started).toBeLessThan(100);
        return reads;
      }),
    ]);
    expect(fast.get(key('balanceOf'))).toEqual(halt);
    expect(slow.get(key('slow', 1))).toMatchObject({ problem: 'the read took longer than 200 ms' });
    // The lane ended at its first slow read: its other triggers wait, unread.
    expect(slow.has(key('slow', 2))).toBe(false);
    expect(calls.filter((operation) => operation === 'slow')).toHaveLength(1);
    expect(reader.paused('hostile', 101)).toBe(true);
    expect(reader.paused('hostile', 100 + stateReadLimits.pauseBlocks)).toBe(false);
    expect(reader.paused('other', 101)).toBe(false);
  });

  it('double the pause while the account stays slow, and forget it once its reads answer', async () => {
    const { neo } = fakeNode();
    const reader = new StateReader(neo, limits);
    const { pauseBlocks } = stateReadLimits;
    await reader.readLane(reader.session(0), { account: 'a', keys: [key('slow')] });
    await reader.readLane(reader.session(pauseBlocks), { account: 'a', keys: [key('slow')] });
    expect(reader.paused('a', pauseBlocks * 3 - 1)).toBe(true);
    expect(reader.paused('a', pauseBlocks * 3)).toBe(false);
    await reader.readLane(reader.session(pauseBlocks * 3), { account: 'a', keys: [key('balanceOf')] });
    await reader.readLane(reader.session(pauseBlocks * 3 + 1), { account: 'a', keys: [key('slow')] });
    expect(reader.paused('a', pauseBlocks * 4 + 1)).toBe(false);
  });

  it("make an HTTP refusal the trigger's problem, and an unreachable node nobody's: not read", async () => {
    const { neo } = fakeNode();
    const reader = new StateReader(neo, limits);
    const reads = await reader.readLane(reader.session(1), {
      account: 'a',
      keys: [key('refused'), key('unreachable')],
    });
    expect(reads.get(key('refused'))).toEqual({ problem: 'Neo RPC invokefunction failed: HTTP 413' });
    expect(reads.get(key('unreachable'))).toEqual({ postponed: true });
  });

  it('make at most readsPerAccount reads of one account a block, and none once the budget is spent', async () => {
    const { neo, calls } = fakeNode();
    const reader = new StateReader(neo, limits);
    const keys = Array.from({ length: 10 }, (_, index) => key('balanceOf', index));
    const reads = await reader.readLane(reader.session(1), { account: 'a', keys });
    expect(reads.size).toBe(stateReadLimits.readsPerAccount);
    const late = reader.session(2);
    await sleep(limits.blockBudgetMs + 10);
    expect([...(await reader.readLane(late, { account: 'b', keys })).values()]).toEqual([{ postponed: true }]);
    expect(calls).toHaveLength(stateReadLimits.readsPerAccount);
  });

  it('share a read between the lanes of one block', async () => {
    const { neo, calls } = fakeNode();
    const reader = new StateReader(neo, limits);
    const session = reader.session(1);
    const lanes = await Promise.all(
      ['a', 'b', 'c'].map((account) => reader.readLane(session, { account, keys: [key('balanceOf')] })),
    );
    expect(lanes.map((reads): Read | undefined => reads.get(key('balanceOf')))).toEqual([halt, halt, halt]);
    expect(calls).toHaveLength(1);
  });

  it('refuse without a call a read heavier than the argument bound (stored before the bound)', async () => {
    const { neo, calls } = fakeNode();
    const reader = new StateReader(neo, limits);
    const heavy = JSON.stringify([
      `0x${'ab'.repeat(20)}`,
      'm',
      [{ type: 'String', value: 'x'.repeat(maxArgsBytes * 2) }],
    ]);
    const reads = await reader.readLane(reader.session(1), { account: 'a', keys: [heavy] });
    expect(reads.get(heavy)).toEqual({ problem: `the arguments are more than ${maxArgsBytes} bytes as JSON` });
    expect(calls).toHaveLength(0);
  });
});

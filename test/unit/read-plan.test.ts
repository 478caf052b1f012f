import { describe, expect, it } from 'vitest';
import {
  aheadBlocks,
  bodiesPerRead,
  callsPerRequest,
  planRead,
  type AheadBlock,
  type BlockBody,
  type ReadPlan,
} from '../../src/chain/nodes/read-plan.ts';

/** RpcServer's cap on a request (issue 45). */
const oneMiB = 1024 * 1024;

const hashOf = (prefix: string, index: number, at = 0) =>
  `0x${prefix}${index.toString(16).padStart(8, '0')}${at.toString(16).padStart(8, '0')}`.padEnd(66, '0');
/** Block `index` holding `transactions` transactions. */
const body = (index: number, transactions = 1): BlockBody => ({
  hash: hashOf('b', index),
  index,
  tx: Array.from({ length: transactions }, (_, at) => ({ hash: hashOf('t', index, at) })),
});
const ahead = (from: number, length: number, fields: Partial<AheadBlock> = {}): AheadBlock[] =>
  Array.from({ length }, (_, offset) => ({ body: body(from + offset), listed: false, ...fields }));

/** The request exactly as it is sent: the JSON-RPC batch, ids from 0. */
const sentBytes = (request: ReadPlan['requests'][number]) =>
  Buffer.byteLength(
    JSON.stringify(request.map((call, id) => ({ jsonrpc: '2.0', id, method: call.method, params: call.params }))),
  );
/** Each call as `method(first param)`, requests one after another. */
const flat = (plan: ReadPlan) => plan.requests.flat().map((call) => `${call.method}(${String(call.params[0])})`);
const logsOf = (block: BlockBody) => [
  `getapplicationlog(${block.hash})`,
  ...block.tx.map((transaction) => `getapplicationlog(${transaction.hash})`),
];

describe('planning a read of a C# node`s block', () => {
  it('at the tip: one request, the block`s log, its transactions` in order, then the next block`s body', () => {
    const block = body(100, 3);
    const plan = planRead({ block, ahead: [], count: 101, inOrder: true });
    expect(plan.requests).toHaveLength(1);
    expect(flat(plan)).toEqual([...logsOf(block), 'getblock(101)']);
    expect(plan.requests[0]!.at(-1)).toEqual({ method: 'getblock', params: [101, true] });
  });

  it('behind the tip: one request carries the logs of the blocks whose bodies are kept and the next bodies', () => {
    const block = body(100);
    const kept = ahead(101, 15);
    const plan = planRead({ block, ahead: kept, count: 1000, inOrder: true });
    expect(plan.requests).toHaveLength(1);
    expect(plan.logsOf.map((read) => read.index)).toEqual(Array.from({ length: 16 }, (_, at) => 100 + at));
    const bodies = Array.from({ length: bodiesPerRead }, (_, at) => 116 + at);
    expect(plan.bodies).toEqual(bodies);
    expect(flat(plan)).toEqual([
      ...[block, ...kept.map((aheadBlock) => aheadBlock.body)].flatMap(logsOf),
      ...bodies.map((index) => `getblock(${index})`),
    ]);
    expect(sentBytes(plan.requests[0]!)).toBeLessThan(oneMiB);
  });

  it('asks no body past the node`s count but the next one, and keeps no more than its share of blocks ahead', () => {
    expect(planRead({ block: body(100), ahead: ahead(101, 3), count: 110, inOrder: true }).bodies).toEqual([
      104, 105, 106, 107, 108, 109,
    ]);
    expect(planRead({ block: body(100), ahead: ahead(101, 9), count: 110, inOrder: true }).bodies).toEqual([110]);
    const full = planRead({ block: body(100), ahead: ahead(101, aheadBlocks - 2), count: 1000, inOrder: true });
    expect(full.bodies).toHaveLength(2);
    expect(planRead({ block: body(100), ahead: ahead(101, aheadBlocks), count: 1000, inOrder: true }).bodies).toEqual(
      [],
    );
  });

  it('a read out of order (a test of one block, a first read) asks its logs and only a next body none is kept for', () => {
    const alone = planRead({ block: body(100), ahead: [], count: 1000, inOrder: false });
    expect(flat(alone)).toEqual([...logsOf(body(100)), 'getblock(101)']);
    const beside = planRead({ block: body(100), ahead: ahead(101, 5), count: 1000, inOrder: false });
    expect(flat(beside)).toEqual(logsOf(body(100)));
  });

  it('reads no kept block`s logs twice: those already read are passed over, the others still read', () => {
    const kept = [...ahead(101, 4, { listed: true }), ...ahead(105, 2)];
    const plan = planRead({ block: body(100), ahead: kept, count: 1000, inOrder: true });
    expect(plan.logsOf.map((read) => read.index)).toEqual([100, 105, 106]);
  });

  it('cuts a block with 1,000 transactions into requests under the cap, in order, reading no block after it along', () => {
    const block = body(100, 1000);
    const kept = ahead(101, 3);
    const plan = planRead({ block, ahead: kept, count: 1000, inOrder: true });
    expect(plan.logsOf).toEqual([block]);
    expect(plan.requests.length).toBe(Math.ceil((1001 + bodiesPerRead) / callsPerRequest));
    for (const request of plan.requests) {
      expect(request.length).toBeLessThanOrEqual(callsPerRequest);
      expect(sentBytes(request)).toBeLessThan(oneMiB);
    }
    expect(flat(plan)).toEqual([
      ...logsOf(block),
      ...Array.from({ length: bodiesPerRead }, (_, at) => `getblock(${104 + at})`),
    ]);
  });

  it('stops reading ahead at a kept block that would not fit beside the others: it is read in its turn, nothing after it skipped', () => {
    const big: AheadBlock = { body: body(102, callsPerRequest), listed: false };
    const kept = [...ahead(101, 1), big, ...ahead(103, 2)];
    const plan = planRead({ block: body(100), ahead: kept, count: 1000, inOrder: true });
    expect(plan.logsOf.map((read) => read.index)).toEqual([100, 101]);
    expect(plan.requests).toHaveLength(1);
    // Its turn: the big block first, cut under the cap, the blocks after it read then.
    const turn = planRead({ block: big.body, ahead: ahead(103, 2), count: 1000, inOrder: true });
    expect(turn.logsOf.map((read) => read.index)).toEqual([102]);
    expect(turn.requests.length).toBeGreaterThan(1);
    expect(turn.requests.every((request) => request.length <= callsPerRequest)).toBe(true);
  });
});

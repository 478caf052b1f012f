import { afterEach, describe, expect, it } from 'vitest';
import { readBlockNotifications, type BlockNotifications } from '../../src/chain/blocks.ts';
import { BlockDisagreementError } from '../../src/chain/nodes/block-agreement.ts';
import { openNetworks, type Networks } from '../../src/chain/nodes/networks.ts';
import type { NodeClient } from '../../src/chain/nodes/node-state.ts';
import type { BatchCall } from '../../src/chain/nodes/rpc-batch.ts';
import { NeoRpcError, type NeoRpc } from '../../src/chain/rpc.ts';
import type { Logger } from '../../src/log.ts';

const magic = 860833102;

/** A node in memory: its magic, height, kind, whether it answers, and every call it was made. */
interface FakeNode {
  magic: number;
  count: number;
  kind: 'neo-go' | 'csharp';
  down: boolean;
  hashes: (index: number) => string;
  calls: string[];
  sent: string[];
  /** Answers of getblocknotifications before a real one, as errors. */
  notYet: number;
  /** A C# node's answers of a block's getapplicationlog before a real one, as -32602. */
  logsNotYet: number;
  /** Blocks whose own getapplicationlog answers -32602 once (each taken out when so answered). */
  logsNotYetOf: Set<number>;
  /** Each request's methods, a batch's together. */
  requests: string[][];
}

const fakeNode = (fields: Partial<FakeNode> = {}): FakeNode => ({
  magic,
  count: 100,
  kind: 'neo-go',
  down: false,
  hashes: (index) => `0x${index.toString(16).padStart(64, '0')}`,
  calls: [],
  sent: [],
  notYet: 0,
  logsNotYet: 0,
  logsNotYetOf: new Set(),
  requests: [],
  ...fields,
});

/** On a C# node, each block holds one transaction, whose hash this is. */
const txOf = (index: number) => `0x${'a'.repeat(56)}${index.toString(16).padStart(8, '0')}`;
const unknownBlock = (method: string) => new NeoRpcError(method, 'Unknown block', -101);

const transport = () => new TypeError('fetch failed');

function clientOf(node: FakeNode): NodeClient {
  const answer = async <T>(method: string, value: () => T): Promise<T> => {
    node.calls.push(method);
    node.requests.push([method]);
    if (node.down) throw transport();
    return value();
  };
  const indexOf = (hashOrIndex: unknown) =>
    typeof hashOrIndex === 'number'
      ? hashOrIndex
      : Array.from({ length: node.count }, (_, index) => index).find((index) => node.hashes(index) === hashOrIndex);
  const single = (call: BatchCall): unknown => {
    switch (call.method) {
      case 'getblockcount':
        return node.count;
      case 'getblock': {
        const index = indexOf(call.params[0]);
        if (index === undefined || index >= node.count) throw unknownBlock(call.method);
        return { hash: node.hashes(index), index, tx: [{ hash: txOf(index) }] };
      }
      case 'getapplicationlog': {
        const hash = call.params[0] as string;
        const index = indexOf(hash);
        if (index !== undefined && (node.logsNotYet-- > 0 || node.logsNotYetOf.delete(index)))
          throw new NeoRpcError(call.method, 'Invalid params', -32602);
        const execution = (trigger: string) => ({
          trigger,
          vmstate: 'HALT',
          notifications: [{ contract: '0x1', eventname: trigger, state: { type: 'Any' } }],
        });
        return {
          executions:
            index === undefined ? [execution('Application')] : [execution('OnPersist'), execution('PostPersist')],
        };
      }
      case 'getversion':
        return { useragent: '/NEO-GO:0.110.0/', protocol: { network: node.magic } };
      case 'getblockhash':
        return node.hashes(call.params[0] as number);
      case 'getblocknotifications':
        if (node.kind === 'csharp') throw new NeoRpcError(call.method, 'Method not found', -32601);
        return {};
      case 'listplugins':
        if (node.kind === 'neo-go') throw new NeoRpcError(call.method, 'Method not found', -32601);
        return [{ name: 'ApplicationLogs' }];
      default:
        throw new Error(`unexpected ${call.method}`);
    }
  };
  const rpc: Partial<NeoRpc> = {
    url: 'fake',
    getBlockCount: () => answer('getblockcount', () => node.count),
    getBlockHash: (index) =>
      answer('getblockhash', () => {
        if (index >= node.count) throw new NeoRpcError('getblockhash', 'beyond the tip', -109);
        return node.hashes(index);
      }),
    getBlockNotifications: (hash) =>
      answer('getblocknotifications', () => {
        if (node.notYet-- > 0) throw new NeoRpcError('getblocknotifications', 'Unknown script container', -105);
        return {
          onpersist: [],
          application: [],
          postpersist: [{ container: hash, contract: '0x1', eventname: 'E', state: { type: 'Any' } }],
        };
      }),
    getTransaction: (hash) =>
      answer('getrawtransaction', () => {
        throw new NeoRpcError('getrawtransaction', `Unknown transaction ${hash}`, -103);
      }),
    sendRawTransaction: (raw) =>
      answer('sendrawtransaction', () => {
        node.sent.push(raw as string);
        return '0xabc';
      }),
  };
  return {
    rpc: rpc as NeoRpc,
    batch: async (calls) => {
      node.calls.push(...calls.map((call) => call.method));
      node.requests.push(calls.map((call) => call.method));
      if (node.down) throw transport();
      return calls.map((call) => {
        try {
          return { result: single(call) };
        } catch (error) {
          return { error: error as NeoRpcError };
        }
      });
    },
  };
}

function recordingLog() {
  const lines: { level: string; message: string; fields?: Record<string, unknown> }[] = [];
  const at = (level: string) => (message: string, fields?: Record<string, unknown>) =>
    lines.push({ level, message, fields });
  const log: Logger = { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error'), with: () => log };
  return { log, lines };
}

let open: Networks | undefined;
afterEach(() => open?.close());

/** One network `main` over `nodes`, at http://node-<i>.test, with a 60 s refresh (the tests refresh by hand). */
async function poolOf(nodes: FakeNode[], extra: { weights?: number[]; magic?: number; agreement?: number } = {}) {
  const { log, lines } = recordingLog();
  const urls = nodes.map((_, index) => `http://user:secret@node-${index}.test:10332/rpc?key=k`);
  const byUrl = new Map(urls.map((url, index) => [url, nodes[index]!]));
  open = await openNetworks(
    [
      {
        name: 'main',
        magic: extra.magic,
        nodes: urls.map((url, index) => ({ url, weight: extra.weights?.[index] ?? 1 })),
      },
    ],
    { log, agreement: extra.agreement, connect: (url) => clientOf(byUrl.get(url)!), refreshMs: 60_000, notYetMs: 1000 },
  );
  const pool = open.first;
  return { pool, lines, report: () => open!.report()[0]!, primary: () => pool.probing.primary?.shown };
}

describe('node pool: who may serve', () => {
  it('refuses a node answering another magic at start, names it in a log line and the report, and never calls it again', async () => {
    const stranger = fakeNode({ magic: 894710606 });
    const { pool, lines, report } = await poolOf([fakeNode(), stranger], { magic });
    const callsAfterProbe = stranger.calls.length;
    await pool.getBlockCount();
    await pool.getBlockNotifications(await pool.getBlockHash(5));
    await pool.probing.refresh();
    expect(stranger.calls.length).toBe(callsAfterProbe);
    expect(lines).toContainEqual({
      level: 'error',
      message: 'neo node refused',
      fields: {
        network: 'main',
        node: 'http://node-1.test:10332',
        reason: `answers network magic 894710606, not ${magic}`,
      },
    });
    expect(report().nodes[1]).toMatchObject({ url: 'http://node-1.test:10332', status: 'refused', primary: false });
    expect(report().status).toBe('degraded');
  });

  it('takes the first node`s magic when none is configured', async () => {
    const { pool, report } = await poolOf([fakeNode({ magic: 7 }), fakeNode()]);
    expect(await pool.getNetworkMagic()).toBe(7);
    expect(report().nodes.map((node) => node.status)).toEqual(['ok', 'refused']);
  });

  it('never makes a node 10 blocks behind primary, whatever its weight, and shows it lagging', async () => {
    const behind = fakeNode({ count: 90 });
    const { pool, report, primary } = await poolOf([behind, fakeNode()], { weights: [100, 1] });
    const probed = behind.calls.length;
    for (let round = 0; round < 3; round++) {
      await pool.probing.refresh();
      expect(primary()).toBe('http://node-1.test:10332');
    }
    await pool.getBlockNotifications(await pool.getBlockHash(95));
    expect(behind.calls.slice(probed).filter((method) => method !== 'getblockcount')).toEqual([]);
    expect(report().nodes[0]).toMatchObject({ status: 'lagging', lagBlocks: 10, primary: false });
  });

  it('keeps its primary until it fails, then keeps the new one when the old comes back', async () => {
    const [first, second] = [fakeNode(), fakeNode()];
    const { pool, primary } = await poolOf([first, second], { weights: [10, 1] });
    expect(primary()).toBe('http://node-0.test:10332');
    first.down = true;
    expect(await pool.getBlockCount()).toBe(100);
    expect(primary()).toBe('http://node-1.test:10332');
    first.down = false;
    await pool.probing.refresh();
    expect(primary()).toBe('http://node-1.test:10332');
  });
});

describe('node pool: as a NeoRpc', () => {
  it('keeps its calls when spread into another object, as withSharedReads does', async () => {
    const { pool } = await poolOf([fakeNode()]);
    const spread: NeoRpc = { ...pool };
    expect(await spread.getBlockCount()).toBe(100);
    expect(await spread.getBlockHash(3)).toBe(fakeNode().hashes(3));
  });
});

describe('node pool: the best height', () => {
  it('is that of the nodes that answer: when the highest goes down, the one behind it serves', async () => {
    const [highest, below] = [fakeNode({ count: 110 }), fakeNode({ count: 100 })];
    const { pool, report, primary } = await poolOf([highest, below]);
    expect(report().nodes[1]).toMatchObject({ status: 'lagging' });
    highest.down = true;
    await pool.probing.refresh();
    expect(primary()).toBe('http://node-1.test:10332');
    expect(await pool.getBlockCount()).toBe(100);
    expect(report().nodes.map((node) => node.status)).toEqual(['down', 'ok']);
  });
});

describe('node pool: classes of failure', () => {
  it('waits on "not yet" (-105) and answers once the node holds the block, never skipping it', async () => {
    const node = fakeNode({ notYet: 2 });
    const { pool } = await poolOf([node]);
    node.calls = [];
    const lists = await pool.getBlockNotifications('0xaa');
    expect(lists.postpersist).toHaveLength(1);
    expect(node.calls.filter((method) => method === 'getblocknotifications')).toHaveLength(3);
  });

  it('waits for a block beyond one node`s tip on another node (-109 is not yet)', async () => {
    const [primary, ahead] = [fakeNode({ count: 100 }), fakeNode({ count: 101 })];
    const { pool } = await poolOf([primary, ahead], { weights: [10, 1] });
    expect(await pool.getBlockHash(100)).toBe(ahead.hashes(100));
  });

  it('answers a request`s own error (unknown transaction) from the first node, marking no node down', async () => {
    const [first, second] = [fakeNode(), fakeNode()];
    const { pool, report } = await poolOf([first, second], { weights: [10, 1] });
    await expect(pool.getTransaction('0x01')).rejects.toMatchObject({ code: -103 });
    expect(second.calls).not.toContain('getrawtransaction');
    expect(report().nodes.every((node) => node.status === 'ok')).toBe(true);
  });

  it('sends a transaction`s same bytes to the primary and one other node', async () => {
    const nodes = [fakeNode(), fakeNode(), fakeNode()];
    const { pool } = await poolOf(nodes, { weights: [10, 5, 1] });
    expect(await pool.sendRawTransaction('00ff')).toBe('0xabc');
    expect(nodes.map((node) => node.sent)).toEqual([['00ff'], ['00ff'], []]);
  });

  it('relays through the next nodes while the primary is down', async () => {
    const nodes = [fakeNode({ down: true }), fakeNode(), fakeNode()];
    const { pool } = await poolOf(nodes, { weights: [10, 5, 1] });
    nodes[0]!.down = true;
    expect(await pool.sendRawTransaction('00ff')).toBe('0xabc');
    expect(nodes.map((node) => node.sent.length)).toEqual([0, 1, 1]);
  });
});

describe('node pool: block agreement', () => {
  it('stops at a height where two nodes give different hashes, with a reason in the report', async () => {
    const odd = fakeNode({ hashes: (index) => (index === 7 ? `0x${'ee'.repeat(32)}` : fakeNode().hashes(index)) });
    const { pool, report } = await poolOf([fakeNode(), odd], { agreement: 2 });
    expect(await pool.getBlockHash(6)).toBe(fakeNode().hashes(6));
    await expect(pool.getBlockHash(7)).rejects.toBeInstanceOf(BlockDisagreementError);
    expect(report()).toMatchObject({
      status: 'degraded',
      reason: 'nodes disagree on block 7: the follower stops there',
    });
  });
});

describe('node pool: a C# node`s blocks, read ahead', () => {
  const csharp = (fields: Partial<FakeNode> = {}) => fakeNode({ kind: 'csharp', ...fields });
  /** Requests other than the height's. */
  const reads = (node: FakeNode) => node.requests.filter((methods) => !methods.includes('getblockcount'));

  /** What a block of the fake C# node notifies: its OnPersist, its one transaction's, its PostPersist. */
  const notified = (node: FakeNode, index: number) => [
    [node.hashes(index), 'OnPersist'],
    [txOf(index), 'Application'],
    [node.hashes(index), 'PostPersist'],
  ];
  /** One C# node of `count` blocks, its height read (as the follower's poll does), its requests counted from then on. */
  const poolAtHeight = async (count: number) => {
    const node = csharp({ count });
    const { pool } = await poolOf([node]);
    await pool.getBlockCount();
    node.requests = [];
    return { node, pool };
  };
  const count = (method: string) => (methods: string[]) => methods.filter((asked) => asked === method).length;
  const containersAndNames = (block: BlockNotifications) =>
    block.notifications.map((notification) => [notification.container, notification.eventName]);

  it('at the tip, reads each block in one request: the next block`s body asked with its logs, or with the height', async () => {
    const { node, pool } = await poolAtHeight(91);
    const first = await readBlockNotifications(pool, 90);
    expect(containersAndNames(first)).toEqual(notified(node, 90));
    // The first block: its body, then its logs with the next body (not produced yet).
    expect(reads(node)).toEqual([['getblock'], ['getapplicationlog', 'getapplicationlog', 'getblock']]);
    for (let index = 91; index < 100; index++) {
      node.count = index + 1;
      node.requests = [];
      // The follower's poll of the height brings the body the last read could not have.
      await pool.getBlockCount();
      expect(node.requests).toEqual([['getblockcount', 'getblock']]);
      expect(containersAndNames(await readBlockNotifications(pool, index))).toEqual(notified(node, index));
      expect(reads(node)).toEqual([['getapplicationlog', 'getapplicationlog', 'getblock']]);
    }
  });

  it('behind the tip, reads 40 blocks in order in 6 requests, each block`s notifications as read one by one, then one a block at the tip', async () => {
    const { node, pool } = await poolAtHeight(100);
    for (let index = 60; index < 100; index++) {
      expect(containersAndNames(await readBlockNotifications(pool, index))).toEqual(notified(node, index));
    }
    // 60's body; 60's logs with 61's body; 61's logs with 16 bodies; then the logs of the blocks
    // whose bodies the last request brought, with the next bodies up to the tip (100: not produced).
    expect(reads(node).map(count('getblock'))).toEqual([1, 1, 16, 16, 6, 1]);
    expect(reads(node).map(count('getapplicationlog'))).toEqual([0, 2, 2, 32, 32, 12]);
    // Caught up: the next block is asked for with the height, and read in one request.
    node.count = 101;
    node.requests = [];
    await pool.getBlockCount();
    expect(node.requests).toEqual([['getblockcount', 'getblock']]);
    expect(containersAndNames(await readBlockNotifications(pool, 100))).toEqual(notified(node, 100));
    expect(reads(node)).toHaveLength(1);
  });

  it('reads ahead for two readers going in order at once (the follower, a replay): 2 × 32 blocks in 10 requests', async () => {
    const { node, pool } = await poolAtHeight(200);
    for (let offset = 0; offset < 32; offset++) {
      for (const from of [100, 20]) {
        const index = from + offset;
        expect(containersAndNames(await readBlockNotifications(pool, index))).toEqual(notified(node, index));
      }
    }
    // Each as if alone: its first body, its first two blocks' logs, then the logs of 16 blocks a request.
    expect(reads(node)).toHaveLength(2 * 5);
  });

  it('keeps no read-ahead log that answered -32602: that block`s logs are asked again in its turn, and no block is skipped', async () => {
    const { node, pool } = await poolAtHeight(100);
    await readBlockNotifications(pool, 60);
    await readBlockNotifications(pool, 61);
    // 62's read asks for the logs of 62 to 77: 70's log is not there yet.
    node.logsNotYetOf.add(70);
    node.requests = [];
    for (let index = 62; index < 78; index++) {
      expect(containersAndNames(await readBlockNotifications(pool, index))).toEqual(notified(node, index));
    }
    expect(node.logsNotYetOf.size).toBe(0);
    // 62 to 77 read ahead with 78 to 93's bodies; in its turn, 70's logs asked again, with 78 to 93's.
    expect(reads(node).map(count('getapplicationlog'))).toEqual([32, 2 + 32]);
    expect(reads(node).map(count('getblock'))).toEqual([16, 6]);
  });

  it('reads a block again after its log answered -32602, the bodies asked with it kept, never skipping it', async () => {
    const { node, pool } = await poolAtHeight(100);
    await readBlockNotifications(pool, 50);
    node.requests = [];
    node.logsNotYet = 1;
    const block = await readBlockNotifications(pool, 51);
    expect(containersAndNames(block)).toEqual(notified(node, 51));
    const [refused, again, ...more] = reads(node);
    expect(more).toEqual([]);
    expect(count('getblock')(refused!)).toBe(16);
    // Asked again: 51's logs, with those of the 16 blocks whose bodies came with the refusal.
    expect(count('getapplicationlog')(again!)).toBe(2 * 17);
  });

  it('drops what it read ahead from a node that fails: the next block is read whole from the other', async () => {
    const [first, second] = [csharp(), csharp()];
    const { pool, primary } = await poolOf([first, second], { weights: [10, 1] });
    await readBlockNotifications(pool, 50);
    first.down = true;
    second.requests = [];
    const block = await readBlockNotifications(pool, 51);
    expect(block.blockHash).toBe(second.hashes(51));
    expect(primary()).toBe('http://node-1.test:10332');
    expect(reads(second)).toEqual([
      ['getblock', 'getapplicationlog'],
      ['getapplicationlog', 'getblock'],
    ]);
  });
});

describe('node pool: watching block agreement', () => {
  it('finds the first height two nodes disagree on at a refresh, shows it, and clears it once they agree again', async () => {
    const honest = fakeNode().hashes;
    const forked = (index: number) => (index >= 40 ? `0x${'ee'.repeat(32)}` : honest(index));
    const other = fakeNode({ hashes: forked });
    const { pool, report, lines } = await poolOf([fakeNode(), other], { agreement: 2 });
    expect(report()).toMatchObject({
      status: 'degraded',
      reason: 'nodes disagree on block 40: the follower stops there',
    });
    expect(lines.filter((line) => line.level === 'error').map((line) => line.message)).toEqual([
      expect.stringContaining('disagree on block 40'),
    ]);
    await pool.probing.refresh();
    expect(lines.filter((line) => line.level === 'error')).toHaveLength(1);
    other.hashes = honest;
    await pool.probing.refresh();
    expect(report()).toMatchObject({ status: 'ok' });
    expect(report().reason).toBeUndefined();
  });
});

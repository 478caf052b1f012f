import type { BlockNotificationLists } from '../rpc.ts';
import type { NodeState } from './node-state.ts';
import { aheadBlocks, type AheadBlock, type BlockBody } from './read-plan.ts';

/** Readers going through blocks in order at once that each read ahead: the follower and one more (a replay). */
const readers = 2;
/** Blocks kept at once: each reader's next ones. */
const keptBlocks = readers * aheadBlocks;

interface Kept {
  body: BlockBody;
  /** Set once the block's logs were read ahead, all of them answered. */
  lists?: BlockNotificationLists;
}

/**
 * Block bodies a C# node gave before their block was read, and the notifications of those whose
 * logs were read ahead too (issue 45: one round trip per block at the tip, far fewer behind it:
 * read-plan.ts). When the next block is not produced yet, the next `getblockcount` asks for its
 * body (`wantedFrom`). What is kept serves only calls to the node that gave it: a call to another
 * node (a failover) drops it all. Blocks are final (dBFT), so nothing kept is ever stale; a log
 * the node did not hold yet (-32602) is never kept, and its block's logs are read again. A block
 * is dropped once read; at most `keptBlocks` are kept, the oldest kept dropped first.
 */
export class ReadAhead {
  private node: NodeState | undefined;
  /** By index, oldest kept first. */
  private readonly blocks = new Map<number, Kept>();
  private wanted: number | undefined;
  /** The blocks read last, newest first: one per reader going in order. */
  private readonly lastRead: number[] = [];

  /** Keeps what `node` gave of `body` (hashes in lower case); a body of another node than those kept drops them. */
  keep(node: NodeState, body: BlockBody) {
    this.from(node);
    const hash = body.hash.toLowerCase();
    const tx = body.tx.map((transaction) => ({ hash: transaction.hash.toLowerCase() }));
    this.blocks.delete(body.index);
    this.blocks.set(body.index, { body: { hash, index: body.index, tx } });
    for (const oldest of this.blocks.keys()) {
      if (this.blocks.size <= keptBlocks) break;
      this.blocks.delete(oldest);
    }
    if (this.wanted === body.index) this.wanted = undefined;
  }

  /** Keeps the notifications of block `body`, read from `node`'s logs before their turn. */
  keepLists(node: NodeState, body: BlockBody, lists: BlockNotificationLists) {
    const kept = this.keptOf(node, body.hash);
    if (kept) kept.lists = lists;
  }

  /** The hash of block `index` if `node` gave its body. */
  hashAt(node: NodeState | undefined, index: number): string | undefined {
    if (node === undefined || !this.from(node)) return undefined;
    return this.blocks.get(index)?.body.hash;
  }

  /** The body of block `hash` if `node` gave it; kept until `read`, so that a "not yet" reads it again. */
  bodyOf(node: NodeState, hash: string): BlockBody | undefined {
    return this.keptOf(node, hash)?.body;
  }

  /** The notifications of block `hash` if they were read ahead from `node`. */
  listsOf(node: NodeState, hash: string): BlockNotificationLists | undefined {
    return this.keptOf(node, hash)?.lists;
  }

  /** The blocks kept after block `index`, consecutive from `index + 1`. */
  aheadOf(node: NodeState, index: number): AheadBlock[] {
    const ahead: AheadBlock[] = [];
    if (!this.from(node)) return ahead;
    for (let kept = this.blocks.get(index + 1); kept; kept = this.blocks.get(index + 1 + ahead.length)) {
      ahead.push({ body: kept.body, listed: kept.lists !== undefined });
    }
    return ahead;
  }

  /** Whether block `index` is read right after its predecessor. */
  inOrder(index: number): boolean {
    return this.lastRead.includes(index - 1);
  }

  /** Block `body` was read: it is done with. */
  read(body: BlockBody) {
    if (this.blocks.get(body.index)?.body.hash === body.hash.toLowerCase()) this.blocks.delete(body.index);
    this.lastRead.unshift(body.index);
    this.lastRead.length = Math.min(this.lastRead.length, readers);
  }

  /** Block `index` is read next and `node` did not hold it yet: its next `getblockcount` asks for it. */
  want(node: NodeState, index: number) {
    this.from(node);
    this.wanted = index;
  }

  /** The index to ask `node` for with its block count, if any. */
  wantedFrom(node: NodeState): number | undefined {
    return this.node === node ? this.wanted : undefined;
  }

  private keptOf(node: NodeState, hash: string): Kept | undefined {
    if (!this.from(node)) return undefined;
    const lower = hash.toLowerCase();
    for (const kept of this.blocks.values()) if (kept.body.hash === lower) return kept;
    return undefined;
  }

  /** Whether what is kept is `node`'s; if another node's, it is dropped and `node` keeps from now on. */
  private from(node: NodeState): boolean {
    if (this.node === node) return true;
    this.node = node;
    this.blocks.clear();
    this.wanted = undefined;
    return false;
  }
}

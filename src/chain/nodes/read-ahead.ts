import type { NodeState } from './node-state.ts';

/** What a C# node's `getblock(index, true)` answers that its logs are read by. */
export interface BlockBody {
  hash: string;
  index: number;
  tx: { hash: string }[];
}

/** Bodies kept at once: the follower's next block, and a few more read beside it (a replay). */
const keptBodies = 4;

/**
 * Block bodies a C# node gave before their block was read (issue 45: one round trip per block).
 * Reading block i's logs asks for block i+1's body in the same batch; when i+1 is not produced
 * yet, the next `getblockcount` asks for it (`wantedFrom`). A body serves only calls to the node
 * that gave it: a call to another node (a failover) drops them all. Blocks are final (dBFT), so a
 * body kept is never stale; one read that does not match a body's index and hash simply misses.
 */
export class ReadAhead {
  private node: NodeState | undefined;
  /** By lower-case hash, oldest first. */
  private readonly bodies = new Map<string, BlockBody>();
  private wanted: number | undefined;

  /** Keeps `body` as `node` gave it; a body of another node than those kept drops them. */
  keep(node: NodeState, body: BlockBody) {
    this.from(node);
    const hash = body.hash.toLowerCase();
    this.bodies.delete(hash);
    this.bodies.set(hash, { ...body, hash });
    for (const oldest of this.bodies.keys()) {
      if (this.bodies.size <= keptBodies) break;
      this.bodies.delete(oldest);
    }
    if (this.wanted === body.index) this.wanted = undefined;
  }

  /** The hash of block `index` if `node` gave its body. */
  hashAt(node: NodeState | undefined, index: number): string | undefined {
    if (node === undefined || !this.from(node)) return undefined;
    for (const body of this.bodies.values()) if (body.index === index) return body.hash;
    return undefined;
  }

  /** The body of block `hash` if `node` gave it; kept until `read`, so that a "not yet" reads it again. */
  bodyOf(node: NodeState, hash: string): BlockBody | undefined {
    return this.from(node) ? this.bodies.get(hash.toLowerCase()) : undefined;
  }

  /** Block `hash` was read: its body is done with. */
  read(hash: string) {
    this.bodies.delete(hash.toLowerCase());
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

  /** Whether what is kept is `node`'s; if another node's, it is dropped and `node` keeps from now on. */
  private from(node: NodeState): boolean {
    if (this.node === node) return true;
    this.node = node;
    this.bodies.clear();
    this.wanted = undefined;
    return false;
  }
}

import { setTimeout as sleep } from 'node:timers/promises';
import { neoBlockDisagreements } from '../../metrics/neo-nodes.ts';
import type { NodeState } from './node-state.ts';

/** Nodes that answered different hashes at one height: with dBFT a broken or wrong node, never a reorg. */
export interface Disagreement {
  index: number;
  /** Each hash with the nodes (shown URLs) that gave it. */
  hashes: Record<string, string[]>;
}

/** Stops a network's follower at `index`: its block is not followed while its nodes disagree. */
export class BlockDisagreementError extends Error {
  readonly disagreement: Disagreement;

  constructor(network: string, disagreement: Disagreement) {
    super(
      `nodes of network ${network} disagree on block ${disagreement.index}: ${JSON.stringify(disagreement.hashes)}`,
    );
    this.name = 'BlockDisagreementError';
    this.disagreement = disagreement;
  }
}

/** What agreeing needs of a network's pool. */
interface AgreeingPool {
  readonly name: string;
  readonly agreement: number;
  readonly notYetWaitMs: number;
  disagreement: Disagreement | undefined;
  readonly probing: { logError(message: string): void };
  eachNode<T>(use: (node: NodeState) => Promise<T>): Promise<{ node: NodeState; answer?: T; error?: unknown }[]>;
}

/** Each hash nodes gave for one height, with the nodes (shown URLs) that gave it. */
async function hashesAt(answers: Promise<{ node: NodeState; answer?: string }[]>): Promise<Record<string, string[]>> {
  const hashes: Record<string, string[]> = {};
  for (const { node, answer } of await answers) {
    if (answer !== undefined) (hashes[answer.toLowerCase()] ??= []).push(node.shown);
  }
  return hashes;
}

/** Sets the pool's disagreement; one that begins is counted and logged as an error. */
function disagree(pool: AgreeingPool, disagreement: Disagreement): BlockDisagreementError {
  const error = new BlockDisagreementError(pool.name, disagreement);
  if (pool.disagreement?.index !== disagreement.index) {
    neoBlockDisagreements.inc({ network: pool.name });
    pool.probing.logError(error.message);
  }
  pool.disagreement = disagreement;
  return error;
}

/**
 * The hash of block `index` once `pool.agreement` nodes give it; a second hash from any node is a
 * disagreement (logged as an error, counted, shown by `/v1/health`) that fails the read until the
 * nodes agree again. Nodes that do not hold the block yet are waited for, up to the pool's wait.
 */
export async function agreedBlockHash(pool: AgreeingPool, index: number): Promise<string> {
  const deadline = Date.now() + pool.notYetWaitMs;
  for (;;) {
    const hashes = await hashesAt(pool.eachNode((node) => node.client.rpc.getBlockHash(index)));
    const distinct = Object.entries(hashes);
    if (distinct.length > 1) throw disagree(pool, { index, hashes });
    const [agreed] = distinct;
    if (agreed && agreed[1].length >= pool.agreement) {
      if (pool.disagreement?.index === index) pool.disagreement = undefined;
      return agreed[0];
    }
    if (Date.now() >= deadline) {
      throw new Error(
        `block ${index} of network ${pool.name} has ${agreed?.[1].length ?? 0} of the ${pool.agreement} nodes' agreement it needs`,
      );
    }
    await sleep(250);
  }
}

/** What watching agreement needs of a pool, beyond agreeing. */
interface WatchedPool extends AgreeingPool {
  /** The nodes in sync, each with its block count. */
  inSync(): NodeState[];
}

/**
 * Checks, at each refresh of a pool's heights, that its nodes in sync give one hash for the
 * highest block they all hold: so every process sees a disagreement (the API's `/v1/health`, not
 * only the process whose follower met it). A block's hash commits to every block before it, so
 * nodes agreeing at one height agree below it, and a disagreement is sought down to its first
 * height (the block the follower stops at) by halving. It stands until the nodes give one hash
 * at that height again.
 */
export class AgreementWatch {
  private readonly pool: WatchedPool;
  /** The highest block the nodes were seen to agree on. */
  private agreedThrough = -1;

  constructor(pool: WatchedPool) {
    this.pool = pool;
  }

  async check(): Promise<void> {
    const nodes = this.pool.inSync();
    if (nodes.length < 2) return;
    const hashesOf = (index: number) =>
      hashesAt(Promise.all(nodes.map(async (node) => ({ node, answer: await answerOf(node, index) }))));
    // Agreeing takes two answers at least; a node not answering is left out.
    const verdict = async (index: number) => {
      const hashes = await hashesOf(index);
      const given = Object.values(hashes);
      const agreed = given.length === 1 && given[0]!.length >= 2;
      return { hashes, agreed, disagreed: given.length > 1 };
    };
    const standing = this.pool.disagreement;
    if (standing) {
      if ((await verdict(standing.index)).agreed) this.pool.disagreement = undefined;
      return;
    }
    const top = Math.min(...nodes.map((node) => node.height ?? 0)) - 1;
    if (top <= this.agreedThrough) return;
    const atTop = await verdict(top);
    if (atTop.agreed) this.agreedThrough = top;
    if (!atTop.disagreed) return;
    let [low, high] = [this.agreedThrough + 1, top];
    while (low < high) {
      const middle = Math.floor((low + high) / 2);
      if ((await verdict(middle)).disagreed) high = middle;
      else low = middle + 1;
    }
    const first = low === top ? atTop : await verdict(low);
    if (first.disagreed) disagree(this.pool, { index: low, hashes: first.hashes });
  }
}

/** A node's hash of block `index`, or undefined when it does not answer: it is then left out. */
const answerOf = (node: NodeState, index: number) => node.client.rpc.getBlockHash(index).catch(() => undefined);

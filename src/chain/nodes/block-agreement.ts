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

/**
 * The hash of block `index` once `pool.agreement` nodes give it; a second hash from any node is a
 * disagreement (logged as an error, counted, shown by `/v1/health`) that fails the read until the
 * nodes agree again. Nodes that do not hold the block yet are waited for, up to the pool's wait.
 */
export async function agreedBlockHash(pool: AgreeingPool, index: number): Promise<string> {
  const deadline = Date.now() + pool.notYetWaitMs;
  for (;;) {
    const answers = await pool.eachNode((node) => node.client.rpc.getBlockHash(index));
    const hashes: Record<string, string[]> = {};
    for (const { node, answer } of answers) {
      if (answer !== undefined) (hashes[answer.toLowerCase()] ??= []).push(node.shown);
    }
    const distinct = Object.entries(hashes);
    if (distinct.length > 1) {
      const disagreement = { index, hashes };
      if (pool.disagreement?.index !== index) neoBlockDisagreements.inc({ network: pool.name });
      pool.disagreement = disagreement;
      const error = new BlockDisagreementError(pool.name, disagreement);
      pool.probing.logError(error.message);
      throw error;
    }
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

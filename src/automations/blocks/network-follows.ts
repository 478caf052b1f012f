import { ApplicationFailure } from '@temporalio/common';
import { createEventAbiCache, type EventAbiCache } from '../../chain/blocks.ts';
import { networkUnavailableType, type NamedNodes } from '../../chain/network-of.ts';
import type { NeoRpc } from '../../chain/rpc.ts';
import { BlockPace, followPollMs } from './block-pace.ts';
import { StateFollow } from './state-trigger-follow.ts';
import { UndeployedContracts } from './undeployed-contracts.ts';
import { WatcherIndex } from './watcher-index.ts';

/**
 * What a worker keeps across the rounds of one network's follower: its nodes, and the caches of
 * that network alone, so that one follower's round reads and matches only its own network's
 * automations, whatever the number of the others'.
 */
export interface NetworkFollow {
  /** The network's configured name: the automations it matches carry it. */
  name: string;
  neo: NeoRpc;
  /** The network's event ABIs: current for the blocks this worker followed itself (see `followed`). */
  abi: EventAbiCache;
  /** The block after the last one this worker followed with `abi`, if any. */
  followed: { next: number | null };
  /** Moves the automations whose contract is not deployed to `error`. */
  contracts: UndeployedContracts;
  /** The network's active watchers. */
  watchers: WatcherIndex;
  /** The network's state triggers' evaluation. */
  state: StateFollow;
  /** When its next block can be due, from the heights seen (asked for from then on). */
  pace: BlockPace;
}

interface ContractChecks {
  /** NEOFLOW_TRIGGER_FAILURES: checks in a row a watched contract may be missing. */
  triggerFailureLimit: number;
  contractCheckMs: number;
}

/**
 * Each configured network's follow in this worker, found by the magic number its follower is
 * keyed by (workflow id and cursor): the pool answering that magic, looked up once, then kept.
 */
export class NetworkFollows {
  readonly #pools: readonly NamedNodes[];
  readonly #checks: ContractChecks;
  readonly #byMagic = new Map<string, Promise<NetworkFollow>>();

  constructor(pools: readonly NamedNodes[], checks: ContractChecks) {
    this.#pools = pools;
    this.#checks = checks;
  }

  /** The follow of the network of `magic` (as text); a lookup that failed is made again next time. */
  of(magic: string): Promise<NetworkFollow> {
    const known = this.#byMagic.get(magic);
    if (known) return known;
    const made = poolOfMagic(this.#pools, Number(magic)).then((pool) => this.#follow(pool));
    this.#byMagic.set(magic, made);
    made.catch(() => this.#byMagic.delete(magic));
    return made;
  }

  #follow(pool: NamedNodes): NetworkFollow {
    const { triggerFailureLimit, contractCheckMs } = this.#checks;
    return {
      name: pool.name,
      neo: pool,
      abi: createEventAbiCache(pool),
      followed: { next: null },
      contracts: new UndeployedContracts(pool, triggerFailureLimit, contractCheckMs),
      watchers: new WatcherIndex(pool.name),
      state: new StateFollow(pool.name, pool),
      pace: new BlockPace(followPollMs),
    };
  }
}

/**
 * The pool whose network answers `magic`. While a pool's magic cannot be read (none of its nodes
 * answered yet), it may be that one: the lookup fails, and is retried. Once every pool answered
 * and none has it, the network was taken out of config: a failure no retry mends, naming it.
 */
export async function poolOfMagic<T extends NeoRpc>(pools: readonly T[], magic: number): Promise<T> {
  const answers = await Promise.allSettled(pools.map((pool) => pool.getNetworkMagic()));
  const index = answers.findIndex((answer) => answer.status === 'fulfilled' && answer.value === magic);
  if (index >= 0) return pools[index]!;
  if (answers.some((answer) => answer.status === 'rejected')) {
    throw new Error(`No network answering magic ${magic} yet: some networks' nodes did not answer.`);
  }
  throw ApplicationFailure.create({
    type: networkUnavailableType,
    message: `No configured network has magic ${magic}: its follower has nothing to follow.`,
    nonRetryable: true,
  });
}

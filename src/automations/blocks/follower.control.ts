import type { EntityManager } from '@mikro-orm/postgresql';
import type { Client } from '@temporalio/client';
import { nextFlight } from '../../chain/next-flight.ts';
import type { NamedNodes } from '../../chain/network-of.ts';
import type { NeoRpc } from '../../chain/rpc.ts';
import { networksWatchingBlocks } from '../model/automation.sql.ts';
import { followerTaskQueue } from '../../temporal/task-queues.ts';
import { attributeKeys } from '../../shared/workflow-attributes.ts';
import type { BlockFollowerWorkflow } from '../../shared/workflow-signatures.ts';

/**
 * The follower of one configured Neo network of this deployment: named after the network's magic
 * number and the task queue, as deployments sharing a Temporal namespace have their own.
 */
export const followerId = (network: string, taskQueue: string) => `blocks_${network}_${taskQueue}`;

/** How long an ensure of the follower stands for the requests after it (ensureHeld). */
const followerHeldMs = 10_000;

/** What the follower is started with: the deployment's Temporal, task queue and node. */
interface FollowerTarget {
  client: Client;
  taskQueue: string;
  neo: NeoRpc;
}

/**
 * A network's block follower, kept running: one per network, however many automations watch
 * it, on its own task queue. The process holds one, so that the requests that ask at once share
 * an ensure, and those of the next seconds take it as standing.
 */
class BlockFollower {
  readonly #target: FollowerTarget;
  /** The ensure of the follower, shared by the requests that ask at once (nextFlight). */
  readonly #ensure = nextFlight(() => this.#start());
  /** When the last ensure succeeded (performance.now()). */
  #ensuredAt: number | undefined;

  constructor(target: FollowerTarget) {
    this.#target = target;
  }

  /**
   * Starts the follower unless it runs. One started on the deployment's queue (before the
   * follower had its own) is started again on its own: the cursor, in PostgreSQL, carries over.
   * Requests that ask while an ensure is in flight share the next one (creates of many watchers at
   * once, issue 34).
   */
  ensure(): Promise<void> {
    return this.#ensure();
  }

  /**
   * ensure for a request that arms a watcher: an ensure that succeeded less than `followerHeldMs`
   * ago stands for it. The follower never ends by itself; one an operator terminated meanwhile is
   * started by the next ensure after that, or by the reconciler's pass. Creates of watchers at
   * ~100/s made a start and a describe every round trip or so (0.4 ms of the API's CPU a create
   * and more of Temporal's, issue 34).
   */
  async ensureHeld() {
    if (this.#ensuredAt !== undefined && performance.now() - this.#ensuredAt < followerHeldMs) return;
    await this.ensure();
    this.#ensuredAt = performance.now();
  }

  async #start() {
    const { client, taskQueue, neo } = this.#target;
    const network = String(await neo.getNetworkMagic());
    const start = (workflowIdConflictPolicy: 'USE_EXISTING' | 'TERMINATE_EXISTING') =>
      client.workflow.start<BlockFollowerWorkflow>('blockFollower', {
        workflowId: followerId(network, taskQueue),
        taskQueue: followerTaskQueue(taskQueue),
        args: [network, taskQueue],
        workflowIdConflictPolicy,
        // It serves every account: only the trigger type labels it.
        typedSearchAttributes: [{ key: attributeKeys.trigger, value: 'blockchain' }],
      });
    const running = await start('USE_EXISTING');
    if ((await running.describe()).taskQueue !== followerTaskQueue(taskQueue)) await start('TERMINATE_EXISTING');
  }
}

/** What the followers are started with: the deployment's Temporal, task queue and networks. */
interface FollowersTarget {
  client: Client;
  taskQueue: string;
  networks: readonly NamedNodes[];
}

/** Every configured network's follower, by the network's name. */
export class BlockFollowers {
  readonly #byName: Map<string, BlockFollower>;

  constructor({ client, taskQueue, networks }: FollowersTarget) {
    this.#byName = new Map(networks.map((neo) => [neo.name, new BlockFollower({ client, taskQueue, neo })]));
  }

  /** The follower of the network named (an automation's); none for a name not configured. */
  of(network: string): BlockFollower | undefined {
    return this.#byName.get(network);
  }

  /**
   * Starts the follower of each configured network an active automation watches blocks of,
   * unless it runs (the API at start, the reconciler's pass). A network whose follower cannot be
   * started now does not keep the others from theirs; the first failure is thrown once all tried.
   */
  async ensureWatched(em: EntityManager): Promise<void> {
    const watched = await networksWatchingBlocks(em, [...this.#byName.keys()]);
    const ensured = await Promise.allSettled(watched.map((network) => this.#byName.get(network)!.ensure()));
    const failed = ensured.find((outcome) => outcome.status === 'rejected');
    if (failed) throw failed.reason;
  }
}

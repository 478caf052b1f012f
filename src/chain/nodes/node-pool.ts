/**
 * nodes/: every configured Neo network (networks.ts) as a pool of nodes (this file) that the rest
 * of the service uses as one `NeoRpc`: probed at start and later (pool-probing.ts, node-probe.ts),
 * each URL's health kept (node-state.ts), failures classed (rpc-failure.ts), a C# node's blocks
 * read from its ApplicationLogs (log-notifications.ts, in batches: rpc-batch.ts, planned so that a
 * follower behind the tip reads many blocks a request: read-plan.ts, read-ahead.ts), and blocks
 * optionally agreed on by several nodes before they are followed (block-agreement.ts).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { tx } from '@cityofzion/neon-js';
import type { Logger } from '../../log.ts';
import { neoNodeFailures } from '../../metrics/neo-nodes.ts';
import type { NetworkSetting } from '../../net/neo-networks.ts';
import { NeoRpcError, type BlockNotificationLists, type NeoRpc } from '../rpc.ts';
import { agreedBlockHash, AgreementWatch, type Disagreement } from './block-agreement.ts';
import { notificationsByPlan, notificationsFromLogs } from './log-notifications.ts';
import { PoolProbing } from './pool-probing.ts';
import { ReadAhead } from './read-ahead.ts';
import { bodyCall, planRead, type BlockBody } from './read-plan.ts';
import { resultOf } from './rpc-batch.ts';
import { abortedBy, classify } from './rpc-failure.ts';
import { connectNode, NodeState, type NodeClient } from './node-state.ts';

export interface NodePoolOptions {
  log: Logger;
  /** Nodes that must give a block the same hash before it is read (NEOFLOW_BLOCK_AGREEMENT). */
  agreement?: number;
  connect?: (url: string) => NodeClient;
  /** How long a call waits for a block or log some node does not hold yet, before it fails. */
  notYetMs?: number;
  /** How often heights are read and unanswered or refused nodes probed again. */
  refreshMs?: number;
}

const notYetPollMs = 250;

type Transaction = InstanceType<typeof tx.Transaction>;

/**
 * One network's nodes as one `NeoRpc`. Calls go to the sticky primary first, then to the other
 * in-sync nodes (weight first), then to those that failed lately; a node refused (another magic)
 * or never probed is never called, a lagging one only when nothing else is left. A node's failure
 * moves the call on; "not yet" waits; any other JSON-RPC error is the caller's.
 */
export class NodePool implements NeoRpc {
  readonly name: string;
  readonly nodes: NodeState[];
  readonly agreement: number;
  readonly probing: PoolProbing;
  private readonly notYetMs: number;
  private readonly readAhead = new ReadAhead();
  /** Set while nodes disagree on a block's hash: the network's follower stops there. */
  disagreement: Disagreement | undefined;

  constructor(setting: NetworkSetting, options: NodePoolOptions) {
    this.name = setting.name;
    this.url = setting.nodes[0]!.url;
    this.nodes = setting.nodes.map((node) => new NodeState(node, options.connect ?? connectNode));
    this.agreement = options.agreement ?? 1;
    this.notYetMs = options.notYetMs ?? 5000;
    this.probing = new PoolProbing(this.name, this.nodes, setting.magic, options.log, options.refreshMs ?? 1000);
    if (this.agreement > 1) {
      const watch = new AgreementWatch(this);
      this.probing.afterRefresh = () => watch.check();
    }
  }

  /** The first node's; which node answers a call is the pool's choice. */
  readonly url: string;

  /** Probes every node once and keeps refreshing them until `close`. */
  async start(): Promise<void> {
    await this.probing.start();
  }

  close() {
    this.probing.stop();
  }

  /** The nodes to try, in order; those `can` excludes are left out. */
  private candidates(can: (node: NodeState) => boolean = () => true): NodeState[] {
    const best = this.probing.bestHeight;
    const usable = this.nodes.filter((node) => node.probe !== undefined && node.refused === undefined && can(node));
    const byPreference = (a: NodeState, b: NodeState) => b.weight - a.weight || (a.latencyMs ?? 0) - (b.latencyMs ?? 0);
    const primary = this.probing.primary;
    const ok = usable.filter((node) => node.status(best) === 'ok' && node !== primary).sort(byPreference);
    const down = usable.filter((node) => node.status(best) === 'down').sort(byPreference);
    const first = primary && usable.includes(primary) && primary.status(best) === 'ok' ? [primary] : [];
    const ordered = [...first, ...ok, ...down];
    return ordered.length > 0 ? ordered : usable.filter((node) => node.status(best) === 'lagging');
  }

  /** Runs `use` on the first node that answers, as the class header says. */
  private async run<T>(
    method: string,
    use: (node: NodeState) => Promise<T>,
    { can, signal }: { can?: (node: NodeState) => boolean; signal?: AbortSignal } = {},
  ): Promise<T> {
    const deadline = Date.now() + this.notYetMs;
    for (;;) {
      let candidates = this.candidates(can);
      if (candidates.length === 0) {
        await this.probing.probeUnanswered();
        candidates = this.candidates(can);
      }
      if (candidates.length === 0) {
        throw new NeoRpcError(method, `no node of network ${this.name} can answer (${this.probing.summary()})`);
      }
      let notYet: unknown;
      let failure: unknown;
      for (const node of candidates) {
        const started = performance.now();
        try {
          const result = await use(node);
          node.answered(performance.now() - started);
          return result;
        } catch (error) {
          if (abortedBy(signal)) throw error;
          const failureClass = classify(error, method);
          neoNodeFailures.inc({ network: this.name, node: node.shown, class: failureClass });
          if (failureClass === 'request') throw error;
          if (failureClass === 'node') {
            this.probing.nodeFailed(node, error);
            failure ??= error;
          } else {
            notYet ??= error;
          }
        }
      }
      if (notYet === undefined || Date.now() >= deadline) throw notYet ?? failure;
      await sleep(notYetPollMs);
    }
  }

  /** On a C# node, with the body of the block read next when the last read could not have it yet. */
  readonly getBlockCount = (signal?: AbortSignal) => {
    return this.run(
      'getblockcount',
      async (node) => {
        const wanted = this.readAhead.wantedFrom(node);
        const count =
          wanted === undefined
            ? await node.client.rpc.getBlockCount(signal)
            : await this.countWithBody(node, wanted, signal);
        this.probing.noteHeight(node, count);
        return count;
      },
      { signal },
    );
  };

  private async countWithBody(node: NodeState, index: number, signal?: AbortSignal): Promise<number> {
    const [countAnswer, bodyAnswer] = await node.client.batch(
      [{ method: 'getblockcount', params: [] }, bodyCall(index)],
      signal,
    );
    // Before the block is produced, the node answers "unknown block": it is asked for again.
    if ('result' in bodyAnswer!) this.readAhead.keep(node, bodyAnswer.result as BlockBody);
    return resultOf<number>(countAnswer!);
  }

  readonly getNetworkMagic = async (): Promise<number> => {
    return this.probing.magic ?? (await this.probing.probeUnanswered(), this.probing.requireMagic());
  };

  readonly invokeScript = (...args: Parameters<NeoRpc['invokeScript']>) => {
    return this.run('invokescript', (node) => node.client.rpc.invokeScript(...args), { signal: args[2] });
  };

  readonly calculateNetworkFee = (transaction: Transaction) => {
    return this.run('calculatenetworkfee', (node) => node.client.rpc.calculateNetworkFee(transaction));
  };

  /**
   * Sends the same bytes to the primary and one other node at once: either accepting it relays it.
   * Answers the first acceptance; when none accepts, the first answer that is not a node's failure
   * (a rejection, "already known"), else the nodes' failure.
   */
  readonly sendRawTransaction = async (transaction: Transaction | string): Promise<string> => {
    const raw = typeof transaction === 'string' ? transaction : transaction.serialize(true);
    const targets = this.candidates();
    let failure: unknown;
    for (let from = 0; from < Math.max(1, targets.length); from += 2) {
      const pair = targets.slice(from, from + 2);
      if (pair.length === 0) return this.run('sendrawtransaction', (node) => node.client.rpc.sendRawTransaction(raw));
      const answers = await Promise.allSettled(pair.map((node) => node.client.rpc.sendRawTransaction(raw)));
      const accepted = answers.find((answer) => answer.status === 'fulfilled');
      if (accepted) return accepted.value;
      const refusals = answers.map((answer, index) => ({
        node: pair[index]!,
        error: (answer as PromiseRejectedResult).reason as unknown,
      }));
      const answered = refusals.find(({ error }) => classify(error, 'sendrawtransaction') !== 'node');
      for (const { node, error } of refusals)
        if (classify(error, 'sendrawtransaction') === 'node') this.probing.nodeFailed(node, error);
      if (answered) throw answered.error;
      failure ??= refusals[0]!.error;
    }
    throw failure;
  };

  readonly getTransaction = (hash: string) => {
    return this.run('getrawtransaction', (node) => node.client.rpc.getTransaction(hash));
  };

  readonly getBalance = (...args: Parameters<NeoRpc['getBalance']>) => {
    return this.run('invokescript', (node) => node.client.rpc.getBalance(...args), { signal: args[2] });
  };

  readonly invokeFunction = (...args: Parameters<NeoRpc['invokeFunction']>) => {
    return this.run('invokefunction', (node) => node.client.rpc.invokeFunction(...args), { signal: args[3] });
  };

  /** C# nodes have no historic invoke: only a neo-go node answers it. */
  readonly invokeFunctionAt = (...args: Parameters<NeoRpc['invokeFunctionAt']>) => {
    return this.run('invokefunctionhistoric', (node) => node.client.rpc.invokeFunctionAt(...args), {
      can: (node) => node.kind === 'neo-go',
    });
  };

  /**
   * With NEOFLOW_BLOCK_AGREEMENT above 1, only once that many nodes give the same hash. A C# node
   * is asked for the block's body instead, which its logs are then read by; a body read ahead
   * answers with no call.
   */
  readonly getBlockHash = async (index: number): Promise<string> => {
    if (this.agreement > 1) return agreedBlockHash(this, index);
    const ahead = this.readAhead.hashAt(this.candidates()[0], index);
    if (ahead !== undefined) return ahead;
    return this.run('getblockhash', async (node) => {
      if (node.kind !== 'csharp') return node.client.rpc.getBlockHash(index);
      const [answer] = await node.client.batch([bodyCall(index)]);
      const body = resultOf<BlockBody>(answer!);
      this.readAhead.keep(node, body);
      return body.hash;
    });
  };

  /**
   * neo-go's `getblocknotifications`, or a C# node's ApplicationLogs read as it (log-notifications.ts);
   * never a node without logs.
   */
  readonly getBlockNotifications = (blockHash: string) => {
    return this.run(
      'getblocknotifications',
      (node) =>
        node.kind === 'csharp' ? this.fromLogs(node, blockHash) : node.client.rpc.getBlockNotifications(blockHash),
      { can: (node) => node.kind !== 'csharp-no-logs' },
    );
  };

  /**
   * A C# node's block: as read ahead, else by plan when its body was read ahead (read-plan.ts: one
   * request at the tip, one per several blocks behind it), else its body first. What a read brings
   * for later blocks is kept; a log not answered is not, and is asked for again in its turn.
   */
  private async fromLogs(node: NodeState, blockHash: string): Promise<BlockNotificationLists> {
    const ahead = this.readAhead;
    const body = ahead.bodyOf(node, blockHash);
    if (!body) {
      const { block, lists, ahead: next } = await notificationsFromLogs(node.client.batch, blockHash);
      if (next?.body) ahead.keep(node, next.body);
      else if (next) ahead.want(node, next.index);
      ahead.read(block);
      return lists;
    }
    const lists = ahead.listsOf(node, blockHash) ?? (await this.byPlan(node, body));
    ahead.read(body);
    // The next block not kept (not produced when last asked for): the next poll of the height asks for it.
    if (ahead.hashAt(node, body.index + 1) === undefined) ahead.want(node, body.index + 1);
    return lists;
  }

  /** Reads block `body` by plan, keeping what the read brought for later blocks. */
  private async byPlan(node: NodeState, body: BlockBody): Promise<BlockNotificationLists> {
    const ahead = this.readAhead;
    const plan = planRead({
      block: body,
      ahead: ahead.aheadOf(node, body.index),
      count: node.height,
      inOrder: ahead.inOrder(body.index),
    });
    const { blocks, bodies } = await notificationsByPlan(node.client.batch, plan);
    for (const read of bodies) ahead.keep(node, read);
    for (const { block, lists } of blocks.slice(1)) if (lists) ahead.keepLists(node, block, lists);
    const [first] = blocks;
    if (!first?.lists) throw first?.error;
    return first.lists;
  }

  readonly getApplicationLog = (hash: string) => {
    return this.run('getapplicationlog', (node) => node.client.rpc.getApplicationLog(hash), {
      can: (node) => node.kind !== 'csharp-no-logs',
    });
  };

  readonly getBlock = (hash: string) => {
    return this.run('getblock', (node) => node.client.rpc.getBlock(hash));
  };

  readonly getContractState = (scriptHash: string) => {
    return this.run('getcontractstate', (node) => node.client.rpc.getContractState(scriptHash));
  };

  /** Tries `use` on each in-sync node (those failing or lagging left out), for block agreement. */
  async eachNode<T>(use: (node: NodeState) => Promise<T>): Promise<{ node: NodeState; answer?: T; error?: unknown }[]> {
    return Promise.all(
      this.candidates().map(async (node) => {
        try {
          return { node, answer: await use(node) };
        } catch (error) {
          if (classify(error, 'getblockhash') === 'node') this.probing.nodeFailed(node, error);
          return { node, error };
        }
      }),
    );
  }

  /** The nodes in sync, for the watch of block agreement. */
  inSync(): NodeState[] {
    const best = this.probing.bestHeight;
    return this.nodes.filter((node) => node.status(best) === 'ok');
  }

  /** How long a call waits for a block no node holds yet. */
  get notYetWaitMs() {
    return this.notYetMs;
  }
}

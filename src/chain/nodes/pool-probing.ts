import type { Logger } from '../../log.ts';
import { neoNodeHeight, neoNodeLatency, neoNodePrimary, neoNodeStatus } from '../../metrics/neo-nodes.ts';
import { probeNode, softwareOf } from './node-probe.ts';
import type { NodeState, NodeStatus } from './node-state.ts';

/** How often a refused node is asked again whether it now answers the network's magic. */
const refusedProbeMs = 30_000;
const statuses: NodeStatus[] = ['ok', 'lagging', 'down', 'refused'];

/**
 * One network's view of its nodes: who each is (probed at start and again while unanswered or
 * refused), their heights (read every `refreshMs`), the best height seen and the sticky primary,
 * which changes only when it fails or falls more than two blocks behind.
 */
export class PoolProbing {
  primary: NodeState | undefined;
  magic: number | undefined;
  /** Run after each refresh, its failure logged: the pool's watch of block agreement. */
  afterRefresh: (() => Promise<void>) | undefined;
  private timer: NodeJS.Timeout | undefined;
  private refreshing: Promise<void> | undefined;
  private readonly network: string;
  private readonly nodes: NodeState[];
  private readonly configuredMagic: number | undefined;
  private readonly log: Logger;
  private readonly refreshMs: number;

  constructor(network: string, nodes: NodeState[], magic: number | undefined, log: Logger, refreshMs: number) {
    this.network = network;
    this.nodes = nodes;
    this.configuredMagic = magic;
    this.magic = magic;
    this.log = log;
    this.refreshMs = refreshMs;
  }

  async start() {
    await this.probeUnanswered();
    await this.refresh();
    this.timer = setInterval(() => void this.refresh(), this.refreshMs);
    this.timer.unref();
  }

  stop() {
    clearInterval(this.timer);
  }

  /** Probes, in the configuration's order, every node not yet identified and every refused one due again. */
  async probeUnanswered(now = Date.now()) {
    const due = this.nodes.filter(
      (node) => node.probe === undefined && (node.refused === undefined || now - node.probedAt >= refusedProbeMs),
    );
    const probes = await Promise.allSettled(due.map((node) => probeNode(node.url, node.client.batch)));
    // In order: without a configured magic, the first node to answer sets the network's.
    due.forEach((node, index) => {
      const probe = probes[index]!;
      node.probedAt = now;
      if (probe.status === 'rejected') {
        node.failed(probe.reason);
        return;
      }
      const { magic, kind, useragent } = probe.value;
      this.magic ??= magic;
      if (magic !== this.magic) {
        const reason = `answers network magic ${magic}, not ${this.magic}${this.configuredMagic === undefined ? ' (the first node`s)' : ''}`;
        if (node.refused !== reason)
          this.log.error('neo node refused', { network: this.network, node: node.shown, reason });
        node.refused = reason;
        return;
      }
      node.refused = undefined;
      node.probe = probe.value;
      node.answered(0);
      this.log.info('neo node accepted', {
        network: this.network,
        node: node.shown,
        kind,
        software: softwareOf(useragent),
        magic,
      });
    });
    this.publish();
  }

  /** Reads every identified node's height, then reconsiders the primary. */
  refresh(): Promise<void> {
    this.refreshing ??= (async () => {
      await this.probeUnanswered();
      await Promise.all(
        this.nodes
          .filter((node) => node.probe !== undefined && node.refused === undefined)
          .map(async (node) => {
            const started = performance.now();
            try {
              const count = await node.client.rpc.getBlockCount(AbortSignal.timeout(5000));
              node.answered(performance.now() - started);
              this.noteHeight(node, count);
            } catch (error) {
              this.nodeFailed(node, error);
            }
          }),
      );
      this.choosePrimary();
      await this.afterRefresh?.().catch((error: unknown) =>
        this.log.warn('neo agreement check failed', { network: this.network, error: String(error) }),
      );
    })().finally(() => {
      this.refreshing = undefined;
    });
    return this.refreshing;
  }

  /**
   * The highest block count of the nodes that answer: a node that went down with the best height
   * leaves the others in sync rather than all lagging behind a height no live node serves.
   */
  get bestHeight(): number {
    const live = this.nodes.filter((node) => node.probe && !node.refused && node.downSince === undefined);
    return Math.max(0, ...live.map((node) => node.height ?? 0));
  }

  noteHeight(node: NodeState, count: number) {
    node.height = count;
  }

  nodeFailed(node: NodeState, error: unknown) {
    const wasDown = node.downSince !== undefined;
    node.failed(error);
    if (!wasDown) this.log.warn('neo node failed', { network: this.network, node: node.shown, error: node.lastError });
    if (node === this.primary) this.choosePrimary();
  }

  /** Keeps the primary while it is in sync; else the in-sync node of most weight, then least latency. */
  private choosePrimary() {
    const best = this.bestHeight;
    if (this.primary?.status(best) !== 'ok') {
      const next = this.nodes
        .filter((node) => node.status(best) === 'ok')
        .sort((a, b) => b.weight - a.weight || (a.latencyMs ?? 0) - (b.latencyMs ?? 0))[0];
      if (next !== this.primary) {
        this.log.info('neo primary changed', {
          network: this.network,
          from: this.primary?.shown ?? null,
          to: next?.shown ?? null,
        });
      }
      this.primary = next;
    }
    this.publish();
  }

  private publish() {
    for (const node of this.nodes) {
      const labels = { network: this.network, node: node.shown };
      const current = node.status(this.bestHeight);
      for (const status of statuses) neoNodeStatus.set({ ...labels, status }, status === current ? 1 : 0);
      if (node.height !== undefined) neoNodeHeight.set(labels, node.height);
      if (node.latencyMs !== undefined) neoNodeLatency.set(labels, node.latencyMs / 1000);
      neoNodePrimary.set(labels, node === this.primary ? 1 : 0);
    }
  }

  logError(message: string) {
    this.log.error(message, { network: this.network });
  }

  requireMagic(): number {
    if (this.magic === undefined)
      throw new Error(`no node of network ${this.network} answered getversion (${this.summary()})`);
    return this.magic;
  }

  /** Each node and why it cannot serve, for an error message. */
  summary(): string {
    return this.nodes
      .map((node) => `${node.shown}: ${node.refused ?? node.lastError ?? node.status(this.bestHeight)}`)
      .join('; ');
  }
}

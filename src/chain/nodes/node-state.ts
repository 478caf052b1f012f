import { shownUrl, type NodeSetting } from '../../net/neo-networks.ts';
import { createNeoRpc, type NeoRpc } from '../rpc.ts';
import type { NodeKind, NodeProbe } from './node-probe.ts';
import { createBatchCaller, type BatchCaller } from './rpc-batch.ts';

/** `lagging`: more than `maxLagBlocks` behind the best height seen; never primary, never read. */
export type NodeStatus = 'ok' | 'lagging' | 'down' | 'refused';

/** How far behind the best height a node may be and still serve (dBFT makes a block every few seconds). */
const maxLagBlocks = 2;
/** How long a failure counts as recent. */
const recentMs = 60_000;

/** How a node is reached: its single calls and its batches. */
export interface NodeClient {
  rpc: NeoRpc;
  batch: BatchCaller;
}

export const connectNode = (url: string): NodeClient => ({
  rpc: createNeoRpc(url),
  batch: createBatchCaller(url),
});

/** What the pool knows of one URL: who it is (once probed), how high it is, how it has been answering. */
export class NodeState {
  readonly url: string;
  /** For logs, metrics and health: no user, password, path or query. */
  readonly shown: string;
  readonly weight: number;
  readonly client: NodeClient;
  /** Set once a probe answered with the network's magic. */
  probe: NodeProbe | undefined;
  /** Why the node is not used, when its magic is another network's. */
  refused: string | undefined;
  /** When it last answered a probe or was refused; a refused or unprobed node is probed again later. */
  probedAt = 0;
  height: number | undefined;
  /** Set by a failure of the node (no answer, HTTP failure), cleared by its next answer. */
  downSince: number | undefined;
  lastError: string | undefined;
  private failures: number[] = [];
  /** A moving average, in milliseconds. */
  latencyMs: number | undefined;

  constructor(setting: NodeSetting, connect: (url: string) => NodeClient) {
    this.url = setting.url;
    this.shown = shownUrl(setting.url);
    this.weight = setting.weight;
    this.client = connect(setting.url);
  }

  get kind(): NodeKind | undefined {
    return this.probe?.kind;
  }

  answered(latencyMs: number) {
    this.downSince = undefined;
    this.latencyMs = this.latencyMs === undefined ? latencyMs : Math.round(this.latencyMs * 0.8 + latencyMs * 0.2);
  }

  failed(error: unknown, now = Date.now()) {
    this.downSince ??= now;
    this.lastError = error instanceof Error ? error.message : String(error);
    this.failures = [...this.failures.filter((at) => now - at < recentMs), now];
  }

  recentFailures(now = Date.now()): number {
    return this.failures.filter((at) => now - at < recentMs).length;
  }

  status(bestHeight: number): NodeStatus {
    if (this.refused !== undefined) return 'refused';
    if (this.probe === undefined || this.downSince !== undefined) return 'down';
    if (this.height === undefined || bestHeight - this.height > maxLagBlocks) return 'lagging';
    return 'ok';
  }
}

import type { Logger } from '../../log.ts';
import type { NetworkSetting } from '../../net/neo-networks.ts';
import { NodePool, type NodePoolOptions } from './node-pool.ts';
import type { NodeStatus } from './node-state.ts';

interface NodeReport {
  /** Without user, password, path or query. */
  url: string;
  status: NodeStatus;
  kind: string | null;
  primary: boolean;
  blockCount: number | null;
  lagBlocks: number | null;
  latencyMs: number | null;
  recentFailures: number;
  reason?: string;
}

interface NetworkReport {
  name: string;
  magic: number | null;
  /** `down`: no node serves; `degraded`: one does, some do not, or nodes disagree on a block. */
  status: 'ok' | 'degraded' | 'down';
  reason?: string;
  nodes: NodeReport[];
}

/**
 * Every network the deployment follows, by name, each a pool of nodes (issue 45). The first is
 * the default network: the one a process's `neo` is today.
 */
export class Networks {
  readonly pools: NodePool[];

  constructor(pools: NodePool[]) {
    if (pools.length === 0) throw new Error('a deployment follows at least one network');
    this.pools = pools;
  }

  get(name: string): NodePool | undefined {
    return this.pools.find((pool) => pool.name === name);
  }

  get first(): NodePool {
    return this.pools[0]!;
  }

  close() {
    for (const pool of this.pools) pool.close();
  }

  report(): NetworkReport[] {
    return this.pools.map(networkReport);
  }
}

function networkReport(pool: NodePool): NetworkReport {
  const best = pool.probing.bestHeight;
  const nodes = pool.nodes.map((node): NodeReport => {
    const status = node.status(best);
    const reason =
      node.refused ??
      (status === 'down' ? (node.lastError ?? 'not answered yet') : undefined) ??
      (status === 'lagging' ? `${best - (node.height ?? 0)} blocks behind the best seen (${best})` : undefined);
    return {
      url: node.shown,
      status,
      kind: node.kind ?? null,
      primary: node === pool.probing.primary,
      blockCount: node.height ?? null,
      lagBlocks: node.height === undefined ? null : best - node.height,
      latencyMs: node.latencyMs ?? null,
      recentFailures: node.recentFailures(),
      ...(reason === undefined ? {} : { reason }),
    };
  });
  const serving = nodes.some((node) => node.status === 'ok');
  const disagreement = pool.disagreement
    ? `nodes disagree on block ${pool.disagreement.index}: the follower stops there`
    : undefined;
  const status = !serving ? 'down' : disagreement || nodes.some((node) => node.status !== 'ok') ? 'degraded' : 'ok';
  return {
    name: pool.name,
    magic: pool.probing.magic ?? null,
    status,
    ...(disagreement ? { reason: disagreement } : !serving ? { reason: 'no node in sync answers' } : {}),
    nodes,
  };
}

/** Opens a pool per network and probes its nodes once; a node out of reach is probed again later. */
export async function openNetworks(
  settings: NetworkSetting[],
  options: { log: Logger; agreement?: number } & Omit<NodePoolOptions, 'log'>,
): Promise<Networks> {
  const pools = settings.map((setting) => new NodePool(setting, options));
  await Promise.all(pools.map((pool) => pool.start()));
  return new Networks(pools);
}

import { Counter, Gauge } from 'prom-client';
import { registry } from './metrics.ts';

/**
 * Each configured Neo node's standing, by network and node (its URL without user, path or query:
 * labels bounded by the configuration). `status` is one of ok, lagging, down, refused.
 */
export const neoNodeStatus = new Gauge({
  name: 'neoflow_neo_node_status',
  help: '1 for the status each configured Neo node is in (ok, lagging, down, refused), by network and node.',
  labelNames: ['network', 'node', 'status'] as const,
  registers: [registry],
});

export const neoNodeHeight = new Gauge({
  name: 'neoflow_neo_node_block_count',
  help: 'The block count each Neo node last answered, by network and node.',
  labelNames: ['network', 'node'] as const,
  registers: [registry],
});

export const neoNodePrimary = new Gauge({
  name: 'neoflow_neo_node_primary',
  help: '1 for the node each network reads first (its sticky primary), else 0.',
  labelNames: ['network', 'node'] as const,
  registers: [registry],
});

export const neoNodeLatency = new Gauge({
  name: 'neoflow_neo_node_latency_seconds',
  help: 'A moving average of the time each Neo node takes to answer, by network and node.',
  labelNames: ['network', 'node'] as const,
  registers: [registry],
});

export const neoNodeFailures = new Counter({
  name: 'neoflow_neo_node_failures_total',
  help: 'Failed calls to a Neo node, by network, node and class (node: moved to another node; not-yet: waited).',
  labelNames: ['network', 'node', 'class'] as const,
  registers: [registry],
});

export const neoBlockDisagreements = new Counter({
  name: 'neoflow_neo_block_disagreements_total',
  help: 'Heights at which nodes of one network gave different block hashes (NEOFLOW_BLOCK_AGREEMENT): the follower stops there.',
  labelNames: ['network'] as const,
  registers: [registry],
});

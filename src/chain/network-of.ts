import { ApplicationFailure } from '@temporalio/common';
import { AppError } from '../errors.ts';
import type { NeoRpc } from './rpc.ts';

/**
 * What finds a network's nodes by the name an automation or run carries (issue 45): the
 * deployment's `Networks` (src/chain/nodes/networks.ts), or a test's one node.
 */
export interface NetworkNodes {
  get(name: string): NeoRpc | undefined;
}

/** A network's nodes under its configured name: a pool of the deployment's `Networks`. */
export type NamedNodes = NeoRpc & { readonly name: string };

/** A failure's type when the network a run names is not configured (taken out of config). */
export const networkUnavailableType = 'NetworkUnavailable';

const unavailable = (name: string) => `The network "${name}" is not configured in this deployment.`;

/**
 * The nodes of `name` for a step of a run or of a follower. A name the configuration lacks stays
 * lacking however often the step is tried: the failure is non-retryable, and names the network.
 */
export function networkOf(networks: NetworkNodes, name: string): NeoRpc {
  const nodes = networks.get(name);
  if (nodes) return nodes;
  throw ApplicationFailure.create({ type: networkUnavailableType, message: unavailable(name), nonRetryable: true });
}

/**
 * `networkOf` for a request about an automation (its `/test`, a replay, a retry): a network taken
 * out of config is the deployment's state, not the client's mistake, and no retry of the request
 * changes it (409, naming the network).
 */
export function requestNetworkOf(networks: NetworkNodes, name: string): NeoRpc {
  const nodes = networks.get(name);
  if (nodes) return nodes;
  throw new AppError('conflict', `${unavailable(name)} Its automations cannot reach the chain.`, { network: name });
}

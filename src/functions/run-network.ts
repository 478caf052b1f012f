import type { EntityManager } from '@mikro-orm/postgresql';
import type { NeoRpc } from '../chain/rpc.ts';
import { networkOf } from '../chain/network-of.ts';
import type { Networks } from '../chain/nodes/networks.ts';
import type { Execution } from './execution.entity.ts';
import type { ExecutionTrigger } from './execution-record.ts';
import { networkOfExecutionRun } from './execution.sql.ts';

/**
 * The nodes `context.services.blockchain` reads for the execution: its automation run's network,
 * found at the first call (a run that reads no chain asks nothing), or the default network for an
 * invoke. A run's network taken out of config fails the call, naming it.
 */
export function nodesOf(
  deps: { em: EntityManager; networks: Networks },
  execution: Pick<Execution, 'id' | 'trigger'>,
): NeoRpc | (() => Promise<NeoRpc>) {
  if ((execution.trigger as ExecutionTrigger).type !== 'automation') return deps.networks.first;
  let found: Promise<NeoRpc> | undefined;
  const find = async () => {
    const network = await networkOfExecutionRun(deps.em, execution.id);
    if (network === undefined) throw new Error(`The run of execution ${execution.id} is gone.`);
    return networkOf(deps.networks, network);
  };
  return () => (found ??= find());
}

/** The magic a receipt names (its execution's network's); 0 when no node of it answered (a contract then refuses it). */
export async function magicOf(nodes: NeoRpc | (() => Promise<NeoRpc>)): Promise<number> {
  try {
    return await (typeof nodes === 'function' ? await nodes() : nodes).getNetworkMagic();
  } catch {
    return 0;
  }
}

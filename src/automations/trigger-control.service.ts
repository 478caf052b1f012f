import { withSharedReads } from '../chain/shared-reads.ts';
import { egressPolicy } from '../egress/egress-policy.ts';
import type { Resources } from '../resources.ts';
import { TriggerControl } from './triggers.control.ts';

/** The API process's control of the triggers, made from its services. */
export function triggerControlOf(services: Resources): TriggerControl {
  return new TriggerControl({
    client: services.temporal.client,
    taskQueue: services.config.temporal.taskQueue,
    catchupWindowMs: services.config.automations.catchupWindowMs,
    // Creates at once share each network's height and magic (issue 34).
    networks: services.networks.pools.map((pool) => ({ ...withSharedReads(pool), name: pool.name })),
    egress: egressPolicy(services.config.egress),
    log: services.log,
  });
}

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
    // Creates at once share the height and the network's magic (issue 34).
    neo: withSharedReads(services.neo),
    networks: services.networks,
    egress: egressPolicy(services.config.egress),
    log: services.log,
  });
}

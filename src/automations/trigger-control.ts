import { invokerOf } from '../functions/executions.service.ts';
import { withSharedReads } from '../chain/shared-reads.ts';
import { egressPolicy } from '../egress/egress-policy.ts';
import type { Resources } from '../resources.ts';
import type { TriggerControl } from './triggers.control.ts';

export function triggerControlOf(services: Resources): TriggerControl {
  return {
    ...invokerOf(services),
    catchupWindowMs: services.config.automations.catchupWindowMs,
    // Creates at once share the height and the network's magic (issue 34).
    neo: withSharedReads(services.neo),
    egress: egressPolicy(services.config.egress),
  };
}

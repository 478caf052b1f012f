import { invokerOf } from '../functions/executions.service.ts';
import { egressPolicy } from '../egress/egress-policy.ts';
import type { Services } from '../services.ts';
import type { TriggerControl } from './triggers.ts';

export function triggerControlOf(services: Services): TriggerControl {
  return {
    ...invokerOf(services),
    catchupWindowMs: services.config.automations.catchupWindowMs,
    neo: services.neo,
    egress: egressPolicy(services.config.egress),
  };
}

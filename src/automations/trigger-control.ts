import type { Services } from '../services.ts';
import type { TriggerControl } from './triggers.ts';

export function triggerControlOf(services: Services): TriggerControl {
  return {
    client: services.temporal.client,
    taskQueue: services.config.temporal.taskQueue,
    catchupWindowMs: services.config.automations.catchupWindowMs,
    neo: services.neo,
  };
}

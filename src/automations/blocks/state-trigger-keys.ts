import type { StateTrigger } from '../model/trigger.schemas.ts';

/**
 * What a mark was decided for: the trigger as stored (its digest, state-trigger-index.ts) and the
 * block it was armed at, so that a changed trigger, or one activated again, starts afresh (armed,
 * nothing seen), as a price poller started for it does. Migration 0026 wrote the same form.
 */
export const conditionKey = (digest: string, watchFromBlock: number | null) => `${digest}:${watchFromBlock ?? ''}`;

/** The read a trigger makes; triggers with the same key share one call. */
export const readKey = (trigger: StateTrigger) =>
  JSON.stringify([trigger.scriptHash.toLowerCase(), trigger.operation, trigger.args]);

import type { StateTrigger } from '../model/trigger.schemas.ts';

/**
 * What a mark was decided for: the trigger as stored and the block it was armed at, so that a
 * changed trigger, or one activated again, starts afresh (armed, nothing seen), as a price
 * poller started for it does. JSON text escapes U+0000 and lone surrogates: storable as it is.
 */
export const conditionKey = (row: { trigger: StateTrigger; watch_from_block: number | null }) =>
  JSON.stringify([row.trigger, row.watch_from_block]);

/** The read a trigger makes; triggers with the same key share one call. */
export const readKey = (trigger: StateTrigger) =>
  JSON.stringify([trigger.scriptHash.toLowerCase(), trigger.operation, trigger.args]);

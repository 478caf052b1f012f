/**
 * An activity refused because its account already holds its share of the worker's activity slots
 * (`NEOFLOW_ACCOUNT_ACTIVITIES`): a failure of this type, never retried by Temporal, whose detail
 * is the attempts the step made before (a delivery's attempts carry over). The workflow waits on a
 * timer, longer each time up to a minute, and asks again. Plain values: workflows import them too.
 */
export const accountBusyType = 'AccountBusy';

export const accountBusyPauses = { firstMs: 1_000, longestMs: 60_000 } as const;

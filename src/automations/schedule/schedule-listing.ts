import type { Client, ScheduleSummary } from '@temporalio/client';

/** The namespace's schedules as one pass of the reconciler listed them. */
export interface ScheduleListing {
  /** When the listing began: a row changed since may be listed as it was before. */
  at: Date;
  /** The pass it serves, counted by the control that took it (its rotating slice). */
  pass: number;
  schedules: Map<string, ScheduleSummary>;
}

/** Schedules listed a page at a time (one RPC each), the most the server gives at once. */
const listPageSize = 1000;

/** Lists every schedule of the namespace (visibility, which may lag a schedule just written). */
export async function listSchedules(client: Client, previousPass: number): Promise<ScheduleListing> {
  const at = new Date();
  const schedules = new Map<string, ScheduleSummary>();
  for await (const summary of client.schedule.list({ pageSize: listPageSize }))
    schedules.set(summary.scheduleId, summary);
  return { at, pass: previousPass + 1, schedules };
}

import type { ScheduleDescription } from '@temporalio/client';
import { nextFireTime } from './next-fire.ts';

/** A fire the schedule counts as running (overlap SKIP waits for it), as its workflow stands. */
export interface RunningFire {
  workflowId: string;
  runId: string;
  startedAt: Date;
  /** When the workflow closed; null while it runs. */
  closedAt: Date | null;
}

/**
 * Why an active schedule does not fire, each found from one describe of it:
 * - `not-processing`: its scheduler has not taken time forward (its next fire time, which it
 *   counts from the last time it processed, lies long past): a timer lost, or the scheduler's
 *   workflow blocked; recreating the schedule gives it a new scheduler.
 * - `waits-on-closed-fire`: it waits for a fire whose workflow closed long ago (the scheduler
 *   missed the close), so overlap SKIP drops every fire since; recreated likewise.
 * - `fire-never-ends`: a fire has run far longer than any fire does (a fire records its run and
 *   starts the action, in seconds), and overlap SKIP drops every fire behind it; that fire is ended.
 * - `no-fires-recorded`: the rows say it (silentSince): no run recorded since a fire fell due long
 *   ago, whatever a describe of the schedule says, and when it does not answer at all (a describe
 *   is a query its scheduler must answer). Recreated likewise.
 */
export type ScheduleStall =
  | { kind: 'not-processing'; since: Date }
  | { kind: 'no-fires-recorded'; since: Date }
  | { kind: 'waits-on-closed-fire'; fire: RunningFire }
  | { kind: 'fire-never-ends'; fire: RunningFire };

/**
 * How long past its time a fire may be before the schedule counts as stalled: twice the catchup
 * window, beyond which the scheduler would drop it anyway (a server busy for that long is down).
 */
export const stallAfterMs = (catchupWindowMs: number) => 2 * catchupWindowMs;

/** What stops an active, unpaused schedule from firing, if anything does. */
export function scheduleStall(
  described: Pick<ScheduleDescription, 'info'>,
  fires: RunningFire[],
  now: Date,
  afterMs: number,
): ScheduleStall | undefined {
  const longAgo = now.getTime() - afterMs;
  const next = described.info.nextActionTimes[0];
  if (next && next.getTime() < longAgo) return { kind: 'not-processing', since: next };
  for (const fire of fires) {
    if (fire.closedAt && fire.closedAt.getTime() < longAgo) return { kind: 'waits-on-closed-fire', fire };
    if (!fire.closedAt && fire.startedAt.getTime() < longAgo) return { kind: 'fire-never-ends', fire };
  }
  return undefined;
}

/**
 * When an active schedule should have fired, long enough ago, without a run recorded since:
 * `lastSeen` is its last recorded run, or when its row last changed (it was activated then, or its
 * cron written) if later. Undefined while its fires are on time.
 */
export function silentSince(
  schedule: { cron: string; timezone: string },
  lastSeen: Date,
  now: Date,
  afterMs: number,
): Date | undefined {
  const due = nextFireTime(schedule.cron, schedule.timezone, lastSeen);
  return due && due.getTime() < now.getTime() - afterMs ? due : undefined;
}

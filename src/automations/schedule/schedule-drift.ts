import type { ScheduleDescription, ScheduleOverlapPolicy } from '@temporalio/client';
import { nextFireTime } from './next-fire.ts';

/** The schedule an automation's row asks for (what scheduleOptions writes). */
export interface DesiredSchedule {
  paused: boolean;
  note: string;
  cron: string;
  timezone: string;
  workflowType: string;
  workflowId: string;
  taskQueue: string;
  args: unknown[];
  overlap: ScheduleOverlapPolicy;
  catchupWindowMs: number;
}

/**
 * The fires of schedules written before issue 50 (`scheduledFire`, overlap SKIP): a workflow of
 * their own that records the run and starts `runAction`. The reconciler rewrites each such schedule
 * whole, in one update, which is a conversion and no drift (`converge` in schedules.control.ts);
 * fires in flight end on `scheduledFire` as they began.
 */
const formerFireType = 'scheduledFire';

/** Whether the schedule was written before a fire was its run's own workflow (`formerFireType`). */
export const writtenBefore = (described: Pick<ScheduleDescription, 'action'>) =>
  described.action.type === 'startWorkflow' && described.action.workflowType === formerFireType;

/**
 * How a schedule was changed underneath its row so that it stops (or would stop) firing, each a
 * way a Temporal Schedule stops by itself or by another's hand; none is written by Neoflow, so
 * rewriting the schedule from its row undoes each:
 * - `paused`: paused while its automation is active, by the pause-on-failure policy (which
 *   overwrites the note) or by someone else (a pause under a row change in flight is not one);
 * - `limited-actions`: given a count of remaining actions, after which it takes none;
 * - `policies-changed`: pause-on-failure turned on, another overlap policy or catchup window;
 * - `action-changed`: it starts another workflow type, id or task queue (one no worker polls);
 * - `spec-changed`: the times it fires are not its cron's (another cron or time zone, an end
 *   time passed, a start time ahead, jitter), read from the next times the server lists.
 * A schedule whose note is one Neoflow wrote for another state of the row (a change a request
 * could not write, in flight) is rewritten by the reconciler without counting as a drift.
 */
export type ScheduleDriftKind = 'paused' | 'limited-actions' | 'policies-changed' | 'action-changed' | 'spec-changed';

/** How many of the server's next fire times are held against the cron's: two tell a shift. */
const timesCompared = 2;

/** What differs between the schedule Temporal holds and the one its row asks for. */
export function scheduleDrift(
  described: Pick<ScheduleDescription, 'state' | 'policies' | 'action' | 'info'>,
  desired: DesiredSchedule,
  now: Date,
): ScheduleDriftKind[] {
  const drift: ScheduleDriftKind[] = [];
  const { state, policies, action } = described;
  const ourOtherNote = state.note !== desired.note && state.note?.startsWith('automation ');
  if (state.paused && !desired.paused && !ourOtherNote) drift.push('paused');
  if (state.remainingActions !== undefined) drift.push('limited-actions');
  // A schedule written before a fire was its run's workflow is converted, not drifted.
  const former = writtenBefore(described);
  if (
    policies.pauseOnFailure ||
    (policies.overlap !== desired.overlap && !former) ||
    policies.catchupWindow !== desired.catchupWindowMs
  )
    drift.push('policies-changed');
  if (
    !former &&
    (action.type !== 'startWorkflow' ||
      action.workflowType !== desired.workflowType ||
      action.workflowId !== desired.workflowId ||
      action.taskQueue !== desired.taskQueue ||
      JSON.stringify(action.args) !== JSON.stringify(desired.args))
  )
    drift.push('action-changed');
  // Under a note of another row of ours, the row changed since (a request that could not write it):
  // the rewrite is pending, not a drift.
  const specHeld = !state.paused && state.remainingActions === undefined && !ourOtherNote;
  if (specHeld && !firesOnCron(described.info.nextActionTimes, desired, now)) drift.push('spec-changed');
  return drift;
}

/**
 * Whether the server's next fire times are the cron's: the first is the cron's first after now
 * (or after itself, when the scheduler lags behind), each next the cron's next.
 */
export function firesOnCron(times: Date[], desired: DesiredSchedule, now: Date) {
  const first = times[0];
  const from = first && first.getTime() <= now.getTime() ? first.getTime() - 1 : now.getTime();
  let expected = nextFireTime(desired.cron, desired.timezone, new Date(from));
  for (let index = 0; index < timesCompared; index += 1) {
    const time = times[index];
    if (!expected) return time === undefined;
    if (time?.getTime() !== expected.getTime()) return false;
    expected = nextFireTime(desired.cron, desired.timezone, expected);
  }
  return true;
}

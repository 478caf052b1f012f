/**
 * schedule/: schedule triggers. Each is a Temporal Schedule written from its row here (its options
 * in schedule-options.control.ts), whose fires start `scheduledRun`, the run's own workflow; next-fire.ts computes a
 * schedule's times as the server does, so reads need no round trip; schedule-stall.ts and
 * schedule-drift.ts say why a schedule stopped firing; schedule-floor.ts refuses a cron that fires
 * more often than the deployment allows.
 */
import {
  ScheduleAlreadyRunning,
  ScheduleOverlapPolicy,
  ScheduleNotFoundError,
  WorkflowNotFoundError,
  type Client,
  type ScheduleDescription,
  type ScheduleExecutionActionResult,
  type ScheduleSummary,
} from '@temporalio/client';
import type { Logger } from '../../log.ts';
import { scheduleStalls } from '../../metrics/metrics.ts';
import { listSchedules, type ScheduleListing } from './schedule-listing.ts';
import { ignore } from '../../temporal/ignore.ts';
import type { ScheduleTrigger } from '../model/trigger.schemas.ts';
import { firesOnCron, scheduleDrift, writtenBefore, type ScheduleDriftKind } from './schedule-drift.ts';
import {
  desiredSchedule,
  scheduleOptions,
  schedulePaused,
  type ScheduledAutomation,
  type ScheduleTarget,
  type WrittenSchedule,
} from './schedule-options.control.ts';
import { scheduleStall, silentSince, stallAfterMs, type RunningFire, type ScheduleStall } from './schedule-stall.ts';

/** Every way a schedule was found stopped: missing (deleted, or never written), changed underneath (drift) or stalled. */
type StallKind = 'missing' | ScheduleDriftKind | ScheduleStall['kind'];

/** What schedules are written with: the deployment's Temporal and options, and where a stall is told. */
interface SchedulesTarget extends ScheduleTarget {
  client: Client;
  log: Pick<Logger, 'warn'>;
}

/**
 * The Temporal Schedule of each schedule automation, written from its row (id = automation id),
 * and made to fire again when it stopped. The process holds one, with the reconciler's listing of
 * the schedules, which a pass takes on its first page and its next pages reuse.
 */
export class Schedules {
  readonly #target: SchedulesTarget;
  #listing: ScheduleListing | undefined;

  constructor(target: SchedulesTarget) {
    this.#target = target;
  }

  /** The namespace's schedules, listed anew when `fresh` (a pass begins) or never listed. */
  async listing(fresh: boolean): Promise<ScheduleListing> {
    if (fresh || !this.#listing) this.#listing = await listSchedules(this.#target.client, this.#listing?.pass ?? 0);
    return this.#listing;
  }

  /** Writes the row's schedule; `created`: the automation is new, its schedule is created (written whole if it exists). */
  async upsert(automation: ScheduledAutomation, created = false) {
    const desired = desiredSchedule(this.#target, automation);
    if (created) {
      const made = await this.#create(automation.id, desired).catch(ignore(ScheduleAlreadyRunning));
      if (made) return;
    }
    const options = scheduleOptions(desired);
    const handle = this.#target.client.schedule.getHandle(automation.id);
    try {
      // Every field Neoflow sets is written whole: what another hand added (an end time, a count of
      // remaining actions, pause-on-failure) goes.
      await handle.update((previous) => ({ ...previous, ...options }));
    } catch (error) {
      if (!(error instanceof ScheduleNotFoundError)) throw error;
      await this.#create(automation.id, desired);
    }
  }

  /** Deletes the automation's schedule, if it has one. */
  async remove(automationId: string) {
    await this.#target.client.schedule.getHandle(automationId).delete().catch(ignore(ScheduleNotFoundError));
  }

  /**
   * Describes the schedule, and writes it only when it differs from the row: missing while active,
   * paused or unpaused against the row, another spec (the note states the spec it was written
   * with, so one describe tells), or changed underneath the row so that it stops firing
   * (schedule-drift.ts). A schedule gone or changed underneath is a stall: logged and counted.
   * Given when its last run was recorded (null: none), an active schedule silent since a fire fell
   * due long ago is a stall too, told by the rows (schedule-stall.ts).
   */
  async converge(automation: ScheduledAutomation, lastRunAt?: Date | null) {
    const desired = desiredSchedule(this.#target, automation);
    const silent = desired.paused || lastRunAt === undefined ? undefined : this.#silence(automation, lastRunAt);
    let described: ScheduleDescription | undefined;
    try {
      described = await this.#target.client.schedule
        .getHandle(automation.id)
        .describe()
        .catch(ignore(ScheduleNotFoundError));
    } catch (error) {
      // A describe is a query its scheduler answers: one that stopped may not answer at all.
      if (!silent) throw error;
      this.#reportStall(automation, silent);
      await this.#recreate(automation);
      return;
    }
    if (!described) {
      if (desired.paused) return;
      this.#reportStall(automation, { kind: 'missing' });
      await this.#create(automation.id, desired);
      return;
    }
    const drift = scheduleDrift(described, desired, new Date());
    for (const kind of drift) this.#reportStall(automation, { kind });
    const changed = described.state.paused !== desired.paused || described.state.note !== desired.note;
    // A schedule written before is converted here, whole, in the one update `upsert` makes.
    if (drift.length > 0 || changed || writtenBefore(described)) {
      await this.upsert(automation);
      return;
    }
    if (!desired.paused) await this.#unstall(automation, described, silent);
  }

  /**
   * Whether the reconciler's listing of schedules (one RPC a page, not one describe a schedule:
   * issue 34) shows `automation`'s schedule as its row asks, so that no describe is needed: listed
   * after the row last changed, paused and noted as the row says, starting scheduledRun for this
   * automation, and, while active, its next fire times the cron's and not long past, with no
   * silence told by the rows. A listing lacks a schedule's policies, remaining actions, action
   * task queue and arguments, and running fires: a drift of those that stops fires shows as
   * silence in the rows (then described); one that does not is found by the full describes the
   * reconciler makes of a rotating slice of schedules each pass (sweep-automations.ts).
   */
  listedAsRow(automation: ScheduledAutomation, summary: ScheduleSummary, listedAt: Date, lastRunAt: Date | null) {
    const desired = desiredSchedule(this.#target, automation);
    if (automation.updatedAt >= listedAt) return false;
    if (summary.state.paused !== desired.paused || summary.state.note !== desired.note) return false;
    if (summary.action?.workflowType !== desired.workflowType) return false;
    // A fire's workflow id is the action's, followed by its scheduled time.
    const firedElsewhere = (workflowId: string) => !workflowId.startsWith(`${desired.workflowId}-`);
    if (summary.info.recentActions.some(({ action }) => firedElsewhere(action.workflow.workflowId))) return false;
    if (desired.paused) return true;
    const now = new Date();
    const next = summary.info.nextActionTimes[0];
    if (next && next.getTime() < now.getTime() - stallAfterMs(this.#target.catchupWindowMs)) return false;
    return firesOnCron(summary.info.nextActionTimes, desired, now) && !this.#silence(automation, lastRunAt);
  }

  /**
   * Creates the schedule `desired` says, paused or not as the scheduler workflow would mark it:
   * with its attribute set from the start, its first task writes no attribute of its own.
   * Resolves true once created.
   */
  async #create(scheduleId: string, desired: WrittenSchedule) {
    await this.#target.client.schedule.create({
      scheduleId,
      ...scheduleOptions(desired),
      typedSearchAttributes: [{ key: schedulePaused, value: desired.paused }],
    });
    return true;
  }

  /** A schedule whose scheduler stopped, created anew with the row's options: a new scheduler. */
  async #recreate(automation: ScheduledAutomation) {
    await this.remove(automation.id);
    await this.#create(automation.id, desiredSchedule(this.#target, automation));
  }

  /**
   * Makes an active schedule that stopped firing fire again (see schedule-stall.ts): a fire that
   * never ends is ended, a schedule whose scheduler stopped is created anew with the row's options.
   * Either is logged and counted (`neoflow_schedule_stalls_total`), for operators to see.
   */
  async #unstall(automation: ScheduledAutomation, described: ScheduleDescription, silent: ScheduleStall | undefined) {
    // Under overlap ALLOW_ALL no fire holds the schedule: a fire is its run, ended by its action only.
    const held = described.policies.overlap !== ScheduleOverlapPolicy.ALLOW_ALL ? described.info.runningActions : [];
    const fires = await Promise.all(held.map((action) => this.#fireState(action)));
    const stall = scheduleStall(described, fires, new Date(), stallAfterMs(this.#target.catchupWindowMs)) ?? silent;
    if (!stall) return;
    this.#reportStall(automation, stall);
    if (stall.kind === 'fire-never-ends') {
      await this.#target.client.workflow
        .getHandle(stall.fire.workflowId, stall.fire.runId)
        .terminate('the fire ran far longer than any fire does; the schedule skipped every fire behind it')
        .catch(ignore(WorkflowNotFoundError));
      return;
    }
    await this.#recreate(automation);
  }

  /** A fire the schedule counts as running, as its workflow stands; gone from Temporal, long closed. */
  async #fireState(action: ScheduleExecutionActionResult): Promise<RunningFire> {
    const { workflowId, firstExecutionRunId: runId } = action.workflow;
    const workflow = await this.#target.client.workflow
      .getHandle(workflowId, runId)
      .describe()
      .catch(ignore(WorkflowNotFoundError));
    if (!workflow) return { workflowId, runId, startedAt: new Date(0), closedAt: new Date(0) };
    return { workflowId, runId, startedAt: workflow.startTime, closedAt: workflow.closeTime ?? null };
  }

  /** The stall the rows tell of an active schedule, if any (silentSince). */
  #silence(automation: ScheduledAutomation, lastRunAt: Date | null): ScheduleStall | undefined {
    const trigger = automation.trigger as ScheduleTrigger;
    const lastSeen = lastRunAt && lastRunAt > automation.updatedAt ? lastRunAt : automation.updatedAt;
    const afterMs = stallAfterMs(this.#target.catchupWindowMs);
    const since = silentSince(
      { cron: trigger.cron, timezone: trigger.timezone ?? 'UTC' },
      lastSeen,
      new Date(),
      afterMs,
    );
    return since && { kind: 'no-fires-recorded', since };
  }

  /** A schedule found not firing, or changed so that it would not, told to operators. */
  #reportStall(automation: ScheduledAutomation, stall: ScheduleStall | { kind: StallKind }) {
    this.#target.log.warn('schedule stalled: made to fire again', { automationId: automation.id, stall });
    scheduleStalls.inc({ kind: stall.kind });
  }
}

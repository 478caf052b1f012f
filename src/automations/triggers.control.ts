import {
  ScheduleAlreadyRunning,
  ScheduleNotFoundError,
  ScheduleOverlapPolicy,
  WorkflowNotFoundError,
  type Client,
  type ScheduleDescription,
  type ScheduleExecutionActionResult,
  type ScheduleOptionsStartWorkflowAction,
  type ScheduleSummary,
} from '@temporalio/client';
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
import { nextFlight } from '../chain/next-flight.ts';
import type { NeoRpc } from '../chain/rpc.ts';
import type { Logger } from '../log.ts';
import type { EgressPolicy } from '../egress/egress-policy.ts';
import { followerTaskQueue } from '../temporal/task-queues.ts';
import { attributeKeys, labelAttributes } from '../shared/workflow-attributes.ts';
import type { blockFollower } from '../../workflows/block-follower.ts';
import type { priceSourcePoller } from '../../workflows/price-source-poller.ts';
import type { scheduledFire } from '../../workflows/scheduled-fire.ts';
import type { Automation } from './model/automation.entity.ts';
import type { ScheduleTrigger, TriggerType } from './model/trigger.schemas.ts';
import { scheduleCron } from './model/cron.ts';
import { firesOnCron, scheduleDrift, type DesiredSchedule, type ScheduleDriftKind } from './schedule/schedule-drift.ts';
import {
  scheduleStall,
  silentSince,
  stallAfterMs,
  type RunningFire,
  type ScheduleStall,
} from './schedule/schedule-stall.ts';
import { scheduleStalls } from '../metrics/metrics.ts';
import { followsBlocks } from './model/state-trigger-kinds.ts';
import { pricePollerId } from './price/price-source-key.ts';
import { leaveToSweepIfDown } from '../temporal/leave-to-sweep.ts';

/**
 * What a schedule is written from: an automation's entity, or the reconciler's plain row of it
 * (automation.sql.ts, scheduleRowsPage).
 */
type ScheduledAutomation = Pick<Automation, 'id' | 'status' | 'trigger' | 'triggerType' | 'updatedAt'> & {
  account: { id: string };
};

/** What keeps Temporal's running state in line with the automations PostgreSQL holds. */
export interface TriggerControl {
  client: Client;
  taskQueue: string;
  catchupWindowMs: number;
  neo: NeoRpc;
  /** Refuses price sources whose URL names an address inside, before they are polled. */
  egress: EgressPolicy;
  /** Where a request tells that Temporal did not take a change (the reconciler will). */
  log: Pick<Logger, 'warn'>;
}

/**
 * The follower of the configured Neo network for this deployment: named after the network's
 * magic number and the task queue, as deployments sharing a Temporal namespace have their own.
 */
export const followerId = (network: string, taskQueue: string) => `blocks_${network}_${taskQueue}`;

/** How an automation changed, as far as its running trigger cares. */
export interface TriggerChange {
  /** The trigger type before the change, whose running part goes if the type changed. */
  previousType?: TriggerType;
  /** A new automation: Temporal holds nothing of it yet, so a schedule is created without a describe first. */
  created?: boolean;
}

/**
 * Makes Temporal run `automation`'s trigger as its row says: a schedule (paused unless active),
 * its price source's poller woken to read it now (it reads its automations' rows at every poll,
 * so a paused or deleted one leaves it by its row alone), or the network's block follower.
 */
export async function applyTrigger(control: TriggerControl, automation: Automation, change: TriggerChange) {
  const { previousType, created = false } = change;
  if (previousType && previousType !== automation.triggerType)
    await removeTrigger(control, automation.id, previousType);
  const active = automation.status === 'active';
  if (automation.triggerType === 'schedule') await upsertSchedule(control, automation, created);
  if (automation.triggerType === 'price' && active && automation.priceSource) {
    await wakePricePoller(control, automation.priceSource);
  }
  if (followsBlocks(automation.triggerType) && active) await ensureBlockFollowerHeld(control);
}

/**
 * Stops what runs for a trigger, for good (deleted automation or changed trigger type): a
 * schedule. A price source's poller no longer finds the row; the block follower, likewise.
 */
export async function removeTrigger(control: TriggerControl, automationId: string, type: TriggerType) {
  if (type === 'schedule') {
    await control.client.schedule.getHandle(automationId).delete().catch(ignore(ScheduleNotFoundError));
  }
}

/**
 * Makes Temporal run what the row says, whatever Temporal holds now (the reconciler, for every
 * automation at each pass): a schedule exists and fires while active with the row's spec, and is
 * paused otherwise (or gone). The price pollers and the block follower are ensured once per pass,
 * not per automation.
 */
export async function convergeTrigger(
  control: TriggerControl,
  automation: ScheduledAutomation,
  lastRunAt?: Date | null,
) {
  if (automation.triggerType === 'schedule') await convergeSchedule(control, automation, lastRunAt);
}

/**
 * Describes the schedule, and writes it only when it differs from the row: missing while active,
 * paused or unpaused against the row, another spec (the note states the spec it was written
 * with, so one describe tells), or changed underneath the row so that it stops firing
 * (schedule-drift.ts). A schedule gone or changed underneath is a stall: logged and counted.
 * Given when its last run was recorded (null: none), an active schedule silent since a fire fell
 * due long ago is a stall too, told by the rows (schedule-stall.ts).
 */
async function convergeSchedule(control: TriggerControl, automation: ScheduledAutomation, lastRunAt?: Date | null) {
  const desired = desiredSchedule(control, automation);
  const silent = desired.paused || lastRunAt === undefined ? undefined : silence(control, automation, lastRunAt);
  let described: ScheduleDescription | undefined;
  try {
    described = await control.client.schedule.getHandle(automation.id).describe().catch(ignore(ScheduleNotFoundError));
  } catch (error) {
    // A describe is a query its scheduler answers: one that stopped may not answer at all.
    if (!silent) throw error;
    reportStall(control, automation, silent);
    await recreateSchedule(control, automation);
    return;
  }
  if (!described) {
    if (desired.paused) return;
    reportStall(control, automation, { kind: 'missing' });
    await createSchedule(control, automation.id, desired);
    return;
  }
  const drift = scheduleDrift(described, desired, new Date());
  for (const kind of drift) reportStall(control, automation, { kind });
  if (drift.length > 0 || described.state.paused !== desired.paused || described.state.note !== desired.note) {
    await upsertSchedule(control, automation);
    return;
  }
  if (!desired.paused) await unstallSchedule(control, automation, described, silent);
}

/**
 * Whether the reconciler's listing of schedules (one RPC a page, not one describe a schedule:
 * issue 34) shows `automation`'s schedule as its row asks, so that no describe is needed: listed
 * after the row last changed, paused and noted as the row says, starting scheduledFire for this
 * automation, and, while active, its next fire times the cron's and not long past, with no
 * silence told by the rows. A listing lacks a schedule's policies, remaining actions, action
 * task queue and arguments, and running fires: a drift of those that stops fires shows as
 * silence in the rows (then described); one that does not is found by the full describes the
 * reconciler makes of a rotating slice of schedules each pass (sweep-automations.ts).
 */
export function listedAsRow(
  control: TriggerControl,
  automation: ScheduledAutomation,
  summary: ScheduleSummary,
  listedAt: Date,
  lastRunAt: Date | null,
) {
  const desired = desiredSchedule(control, automation);
  if (automation.updatedAt >= listedAt) return false;
  if (summary.state.paused !== desired.paused || summary.state.note !== desired.note) return false;
  if (summary.action?.workflowType !== desired.workflowType) return false;
  // A fire's workflow id is the action's, followed by its scheduled time.
  const firedElsewhere = (workflowId: string) => !workflowId.startsWith(`${desired.workflowId}-`);
  if (summary.info.recentActions.some(({ action }) => firedElsewhere(action.workflow.workflowId))) return false;
  if (desired.paused) return true;
  const now = new Date();
  const next = summary.info.nextActionTimes[0];
  if (next && next.getTime() < now.getTime() - stallAfterMs(control.catchupWindowMs)) return false;
  return firesOnCron(summary.info.nextActionTimes, desired, now) && !silence(control, automation, lastRunAt);
}

/** The stall the rows tell of an active schedule, if any (silentSince). */
function silence(
  control: TriggerControl,
  automation: ScheduledAutomation,
  lastRunAt: Date | null,
): ScheduleStall | undefined {
  const trigger = automation.trigger as ScheduleTrigger;
  const lastSeen = lastRunAt && lastRunAt > automation.updatedAt ? lastRunAt : automation.updatedAt;
  const afterMs = stallAfterMs(control.catchupWindowMs);
  const since = silentSince({ cron: trigger.cron, timezone: trigger.timezone ?? 'UTC' }, lastSeen, new Date(), afterMs);
  return since && { kind: 'no-fires-recorded', since };
}

/** Every way a schedule was found stopped: missing (deleted, or never written), changed underneath (drift) or stalled. */
type StallKind = 'missing' | ScheduleDriftKind | ScheduleStall['kind'];

/** A schedule found not firing, or changed so that it would not, told to operators. */
function reportStall(
  control: TriggerControl,
  automation: ScheduledAutomation,
  stall: ScheduleStall | { kind: StallKind },
) {
  control.log.warn('schedule stalled: made to fire again', { automationId: automation.id, stall });
  scheduleStalls.inc({ kind: stall.kind });
}

/**
 * Makes an active schedule that stopped firing fire again (see schedule-stall.ts): a fire that
 * never ends is ended, a schedule whose scheduler stopped is created anew with the row's options.
 * Either is logged and counted (`neoflow_schedule_stalls_total`), for operators to see.
 */
async function unstallSchedule(
  control: TriggerControl,
  automation: ScheduledAutomation,
  described: ScheduleDescription,
  silent: ScheduleStall | undefined,
) {
  const fires = await Promise.all(described.info.runningActions.map((action) => fireState(control, action)));
  const stall = scheduleStall(described, fires, new Date(), stallAfterMs(control.catchupWindowMs)) ?? silent;
  if (!stall) return;
  reportStall(control, automation, stall);
  if (stall.kind === 'fire-never-ends') {
    await control.client.workflow
      .getHandle(stall.fire.workflowId, stall.fire.runId)
      .terminate('the fire ran far longer than any fire does; the schedule skipped every fire behind it')
      .catch(ignore(WorkflowNotFoundError));
    return;
  }
  await recreateSchedule(control, automation);
}

/** A schedule whose scheduler stopped, created anew with the row's options: a new scheduler. */
async function recreateSchedule(control: TriggerControl, automation: ScheduledAutomation) {
  await control.client.schedule.getHandle(automation.id).delete().catch(ignore(ScheduleNotFoundError));
  await createSchedule(control, automation.id, desiredSchedule(control, automation));
}

/** A fire the schedule counts as running, as its workflow stands; gone from Temporal, long closed. */
async function fireState(control: TriggerControl, action: ScheduleExecutionActionResult): Promise<RunningFire> {
  const { workflowId, firstExecutionRunId: runId } = action.workflow;
  const workflow = await control.client.workflow
    .getHandle(workflowId, runId)
    .describe()
    .catch(ignore(WorkflowNotFoundError));
  if (!workflow) return { workflowId, runId, startedAt: new Date(0), closedAt: new Date(0) };
  return { workflowId, runId, startedAt: workflow.startTime, closedAt: workflow.closeTime ?? null };
}

/** Each control's ensure of the follower, shared by the requests that ask at once (nextFlight). */
const followerEnsures = new WeakMap<TriggerControl, () => Promise<void>>();

/**
 * Starts the follower unless it runs: one per network, however many automations watch it, on its
 * own task queue. One started on the deployment's queue (before the follower had its own) is
 * started again on its own: the cursor, in PostgreSQL, carries over. Requests that ask while an
 * ensure is in flight share the next one (creates of many watchers at once, issue 34).
 */
export function ensureBlockFollower(control: TriggerControl): Promise<void> {
  let ensure = followerEnsures.get(control);
  if (!ensure) {
    ensure = nextFlight(() => startBlockFollower(control));
    followerEnsures.set(control, ensure);
  }
  return ensure();
}

/** How long an ensure of the follower stands for the requests after it (ensureBlockFollowerHeld). */
const followerHeldMs = 10_000;

/** When each control's last ensure of the follower succeeded (performance.now()). */
const followerEnsuredAt = new WeakMap<TriggerControl, number>();

/**
 * ensureBlockFollower for a request that arms a watcher: an ensure that succeeded less than
 * `followerHeldMs` ago stands for it. The follower never ends by itself; one an operator
 * terminated meanwhile is started by the next ensure after that, or by the reconciler's pass.
 * Creates of watchers at ~100/s made a start and a describe every round trip or so (0.4 ms of the
 * API's CPU a create and more of Temporal's, issue 34).
 */
async function ensureBlockFollowerHeld(control: TriggerControl) {
  const ensuredAt = followerEnsuredAt.get(control);
  if (ensuredAt !== undefined && performance.now() - ensuredAt < followerHeldMs) return;
  await ensureBlockFollower(control);
  followerEnsuredAt.set(control, performance.now());
}

async function startBlockFollower(control: TriggerControl) {
  const network = String(await control.neo.getNetworkMagic());
  const start = (workflowIdConflictPolicy: 'USE_EXISTING' | 'TERMINATE_EXISTING') =>
    control.client.workflow.start<typeof blockFollower>('blockFollower', {
      workflowId: followerId(network, control.taskQueue),
      taskQueue: followerTaskQueue(control.taskQueue),
      args: [network, control.taskQueue],
      workflowIdConflictPolicy,
      // It serves every account: only the trigger type labels it.
      typedSearchAttributes: [{ key: attributeKeys.trigger, value: 'blockchain' }],
    });
  const running = await start('USE_EXISTING');
  if ((await running.describe()).taskQueue !== followerTaskQueue(control.taskQueue)) await start('TERMINATE_EXISTING');
}

/** Writes the row's schedule; `created`: the automation is new, its schedule is created (written whole if it exists). */
async function upsertSchedule(control: TriggerControl, automation: ScheduledAutomation, created = false) {
  const desired = desiredSchedule(control, automation);
  if (created) {
    const made = await createSchedule(control, automation.id, desired).catch(ignore(ScheduleAlreadyRunning));
    if (made) return;
  }
  const options = scheduleOptions(desired);
  const handle = control.client.schedule.getHandle(automation.id);
  try {
    // Every field Neoflow sets is written whole: what another hand added (an end time, a count of
    // remaining actions, pause-on-failure) goes.
    await handle.update((previous) => ({ ...previous, ...options }));
  } catch (error) {
    if (!(error instanceof ScheduleNotFoundError)) throw error;
    await createSchedule(control, automation.id, desired);
  }
}

/**
 * Temporal's own attribute of a schedule, TemporalSchedulePaused, which its scheduler workflow
 * otherwise upserts in its first task, each create: one more history event and visibility write
 * on the Temporal server (issue 34).
 */
const schedulePaused = defineSearchAttributeKey('TemporalSchedulePaused', SearchAttributeType.BOOL);

/**
 * Creates the schedule `desired` says, paused or not as the scheduler workflow would mark it:
 * with its attribute set from the start, its first task writes no attribute of its own.
 * Resolves true once created.
 */
async function createSchedule(
  control: TriggerControl,
  scheduleId: string,
  desired: ReturnType<typeof desiredSchedule>,
) {
  await control.client.schedule.create({
    scheduleId,
    ...scheduleOptions(desired),
    typedSearchAttributes: [{ key: schedulePaused, value: desired.paused }],
  });
  return true;
}

function desiredSchedule(
  control: TriggerControl,
  automation: ScheduledAutomation,
): DesiredSchedule & { accountId: string } {
  const trigger = automation.trigger as ScheduleTrigger;
  return {
    paused: automation.status !== 'active',
    note: scheduleNote(automation.status, trigger),
    cron: trigger.cron,
    timezone: trigger.timezone ?? 'UTC',
    workflowType: 'scheduledFire',
    workflowId: automation.id,
    taskQueue: control.taskQueue,
    args: [automation.id],
    catchupWindowMs: control.catchupWindowMs,
    accountId: automation.account.id,
  };
}

/**
 * The schedule written for a row. No policy of it ever stops firing: pause-on-failure is off (a
 * failed run is the run's, told by its notifications) and actions are not counted.
 */
function scheduleOptions(desired: ReturnType<typeof desiredSchedule>) {
  const action: ScheduleOptionsStartWorkflowAction<typeof scheduledFire> = {
    type: 'startWorkflow',
    workflowType: 'scheduledFire',
    workflowId: desired.workflowId,
    taskQueue: desired.taskQueue,
    args: [desired.workflowId],
    typedSearchAttributes: labelAttributes({
      accountId: desired.accountId,
      automationId: desired.workflowId,
      trigger: 'schedule',
    }),
  };
  return {
    spec: { cronExpressions: [scheduleCron(desired.cron)], timezone: desired.timezone },
    action,
    policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: desired.catchupWindowMs, pauseOnFailure: false },
    state: { paused: desired.paused, note: desired.note },
  };
}

/** What the schedule was last written with: its row's status and spec, read by an operator too. */
const scheduleNote = (status: string, trigger: ScheduleTrigger) =>
  `automation ${status}: cron "${trigger.cron}" in ${trigger.timezone ?? 'UTC'}`;

/** Options of a source's poller: it serves every automation of the source, labelled by trigger type only. */
const pollerOptions = (control: TriggerControl, source: string) => ({
  workflowId: pricePollerId(source),
  taskQueue: control.taskQueue,
  args: [source] as [string],
  typedSearchAttributes: [{ key: attributeKeys.trigger, value: 'price' }],
});

/**
 * How long after a wake of a source's poller the wakes asked meanwhile wait, to be sent as one: a
 * worker reads a source at most once a second anyway (docs/api.md, price triggers), so more wakes
 * in that second only repeat the poll's read of the rows and its write, into the poller's history.
 */
const wakeWindowMs = 1_000;

/** Each control's sources woken less than a window ago, and whether a wake was asked since. */
const wakeWindows = new WeakMap<TriggerControl, Map<string, { again: boolean }>>();

/**
 * Starts the source's poller unless it runs, and has it poll now (an automation joined it). A
 * source woken less than `wakeWindowMs` ago is woken once more at the window's end for every
 * create that came meanwhile, which answers without waiting for it: price creates at 100/s over
 * a few sources made a poll each (13 ms of worker CPU a create, issue 34). A wake that fails then
 * is logged (leaveToSweepIfDown): the poller reads the row at its next poll, or the reconciler
 * starts one missing.
 */
async function wakePricePoller(control: TriggerControl, source: string) {
  let windows = wakeWindows.get(control);
  if (!windows) {
    windows = new Map();
    wakeWindows.set(control, windows);
  }
  const open = windows.get(source);
  if (open) {
    open.again = true;
    return;
  }
  await wakeInWindow(control, windows, source);
}

/** Wakes the source's poller and opens its window, at whose end the wakes asked meanwhile are sent. */
function wakeInWindow(control: TriggerControl, windows: Map<string, { again: boolean }>, source: string) {
  const window = { again: false };
  windows.set(source, window);
  setTimeout(() => {
    windows.delete(source);
    if (window.again) void leaveToSweepIfDown(control, () => wakeInWindow(control, windows, source));
  }, wakeWindowMs).unref();
  return signalPricePoller(control, source);
}

async function signalPricePoller(control: TriggerControl, source: string) {
  await control.client.workflow.signalWithStart<typeof priceSourcePoller, []>('priceSourcePoller', {
    ...pollerOptions(control, source),
    // workflows/price-source-poller.ts: its wakeSignal.
    signal: 'wake',
    signalArgs: [],
  });
}

/** Starts the source's poller unless it runs (the reconciler, for each source active automations read). */
export async function ensurePricePoller(control: TriggerControl, source: string) {
  await control.client.workflow.start<typeof priceSourcePoller>('priceSourcePoller', {
    ...pollerOptions(control, source),
    workflowIdConflictPolicy: 'USE_EXISTING',
  });
}

/**
 * Terminates the pollers of one automation each that versions before shared sources started
 * (workflow type `pricePoller`, id = automation id): no worker runs that type any more.
 */
export async function stopRetiredPricePollers(control: TriggerControl) {
  const query = `WorkflowType = 'pricePoller' AND ExecutionStatus = 'Running' AND TaskQueue = '${control.taskQueue.replaceAll("'", "''")}'`;
  for await (const workflow of control.client.workflow.list({ query })) {
    await control.client.workflow
      .getHandle(workflow.workflowId, workflow.runId)
      .terminate('price triggers are read by one poller per source')
      .catch(ignore(WorkflowNotFoundError));
  }
}

/** A rejection handler that swallows one error class: the thing to stop was already gone. */
function ignore(type: abstract new (...args: never[]) => Error) {
  return (error: unknown) => {
    if (error instanceof type) return undefined;
    throw error;
  };
}

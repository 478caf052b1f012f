import {
  ScheduleNotFoundError,
  ScheduleOverlapPolicy,
  ServiceError,
  WorkflowNotFoundError,
  type Client,
  type ScheduleOptionsStartWorkflowAction,
} from '@temporalio/client';
import type { NeoRpc } from '../chain/rpc.ts';
import type { EgressPolicy } from '../egress/egress-policy.ts';
import { attributeKeys, labelAttributes } from '../temporal/workflow-attributes.ts';
import type { blockFollower } from '../../workflows/block-follower.ts';
import type { pricePoller } from '../../workflows/price-poller.ts';
import type { scheduledFire } from '../../workflows/scheduled-fire.ts';
import type { Automation } from './automation.entity.ts';
import type { ScheduleTrigger, TriggerType } from './automations.schemas.ts';
import { scheduleCron } from './cron.ts';

/** What keeps Temporal's running state in line with the automations PostgreSQL holds. */
export interface TriggerControl {
  client: Client;
  taskQueue: string;
  catchupWindowMs: number;
  neo: NeoRpc;
  /** Refuses price sources whose URL names an address inside, before they are polled. */
  egress: EgressPolicy;
}

/**
 * The follower of the configured Neo network for this deployment: named after the network's
 * magic number and the task queue, as deployments sharing a Temporal namespace have their own.
 */
export const followerId = (network: string, taskQueue: string) => `blocks_${network}_${taskQueue}`;

/** How an automation changed, as far as its running trigger cares. */
interface TriggerChange {
  /** The trigger type before the change, whose running part goes if the type changed. */
  previousType?: TriggerType;
  /** A new trigger, or one just activated: a price poller starts afresh (armed). */
  rearm: boolean;
}

/**
 * Makes Temporal run `automation`'s trigger as its row says: a schedule (paused unless active),
 * a price poller (only while active; a running one keeps its state unless re-armed), or the
 * network's block follower.
 */
export async function applyTrigger(control: TriggerControl, automation: Automation, change: TriggerChange) {
  const { previousType } = change;
  if (previousType && previousType !== automation.triggerType)
    await removeTrigger(control, automation.id, previousType);
  const active = automation.status === 'active';
  if (automation.triggerType === 'schedule') await upsertSchedule(control, automation);
  if (automation.triggerType === 'price' && !active) await stopWorkflow(control, automation.id);
  if (automation.triggerType === 'price' && active) await startPoller(control, automation, change.rearm);
  if (automation.triggerType === 'blockchain' && active) await ensureBlockFollower(control);
}

/** Stops what runs for a trigger, for good (deleted automation or changed trigger type). */
export async function removeTrigger(control: TriggerControl, automationId: string, type: TriggerType) {
  if (type === 'schedule') {
    await control.client.schedule.getHandle(automationId).delete().catch(ignore(ScheduleNotFoundError));
  }
  if (type === 'price') await stopWorkflow(control, automationId);
}

/** The schedule's next fire time; null for other triggers and while not active. */
export async function nextFireTime(control: TriggerControl, automation: Automation): Promise<Date | null> {
  if (automation.triggerType !== 'schedule' || automation.status !== 'active') return null;
  const description = await control.client.schedule.getHandle(automation.id).describe().catch(ignoreGone);
  return description?.info.nextActionTimes[0] ?? null;
}

/**
 * A schedule described while it is being deleted (the automation deleted or its trigger changed
 * by another request meanwhile) is gone, or its description times out (CANCELLED) while the
 * deletion completes: the automation has no next fire time any more.
 */
function ignoreGone(error: unknown) {
  const grpcCancelled = 1;
  const cancelled =
    error instanceof ServiceError && (error.cause as { code?: unknown } | undefined)?.code === grpcCancelled;
  if (error instanceof ScheduleNotFoundError || cancelled) return undefined;
  throw error;
}

/** Starts the follower unless it runs: one per network, however many automations watch it. */
export async function ensureBlockFollower(control: TriggerControl) {
  const network = String(await control.neo.getNetworkMagic());
  await control.client.workflow.start<typeof blockFollower>('blockFollower', {
    workflowId: followerId(network, control.taskQueue),
    taskQueue: control.taskQueue,
    args: [network],
    workflowIdConflictPolicy: 'USE_EXISTING',
    // It serves every account: only the trigger type labels it.
    typedSearchAttributes: [{ key: attributeKeys.trigger, value: 'blockchain' }],
  });
}

async function upsertSchedule(control: TriggerControl, automation: Automation) {
  const options = scheduleOptions(control, automation);
  const handle = control.client.schedule.getHandle(automation.id);
  try {
    await handle.update((previous) => ({ ...previous, ...options }));
  } catch (error) {
    if (!(error instanceof ScheduleNotFoundError)) throw error;
    await control.client.schedule.create({ scheduleId: automation.id, ...options });
  }
}

function scheduleOptions(control: TriggerControl, automation: Automation) {
  const trigger = automation.trigger as ScheduleTrigger;
  const action: ScheduleOptionsStartWorkflowAction<typeof scheduledFire> = {
    type: 'startWorkflow',
    workflowType: 'scheduledFire',
    workflowId: automation.id,
    taskQueue: control.taskQueue,
    args: [automation.id],
    typedSearchAttributes: labelAttributes({
      accountId: automation.account.id,
      automationId: automation.id,
      trigger: 'schedule',
    }),
  };
  return {
    spec: { cronExpressions: [scheduleCron(trigger.cron)], timezone: trigger.timezone ?? 'UTC' },
    action,
    policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: control.catchupWindowMs },
    state: { paused: automation.status !== 'active', note: `automation ${automation.status}` },
  };
}

async function startPoller(control: TriggerControl, automation: Automation, rearm: boolean) {
  await control.client.workflow.start<typeof pricePoller>('pricePoller', {
    workflowId: automation.id,
    taskQueue: control.taskQueue,
    args: [automation.id],
    workflowIdConflictPolicy: rearm ? 'TERMINATE_EXISTING' : 'USE_EXISTING',
    typedSearchAttributes: labelAttributes({
      accountId: automation.account.id,
      automationId: automation.id,
      trigger: 'price',
    }),
  });
}

async function stopWorkflow(control: TriggerControl, workflowId: string) {
  await control.client.workflow
    .getHandle(workflowId)
    .terminate('automation changed')
    .catch(ignore(WorkflowNotFoundError));
}

/** A rejection handler that swallows one error class: the thing to stop was already gone. */
function ignore(type: abstract new (...args: never[]) => Error) {
  return (error: unknown) => {
    if (error instanceof type) return undefined;
    throw error;
  };
}

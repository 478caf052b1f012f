import { ScheduleOverlapPolicy, type ScheduleOptionsStartWorkflowAction } from '@temporalio/client';
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
import { labelAttributes } from '../../shared/workflow-attributes.ts';
import type { ScheduledRunWorkflow } from '../../shared/workflow-signatures.ts';
import type { Automation } from '../model/automation.entity.ts';
import type { ScheduleTrigger } from '../model/trigger.schemas.ts';
import { scheduleCron } from '../model/cron.ts';
import type { DesiredSchedule } from './schedule-drift.ts';

/**
 * What a schedule is written from: an automation's entity, or the reconciler's plain row of it
 * (automation.sql.ts, scheduleRowsPage).
 */
export type ScheduledAutomation = Pick<
  Automation,
  'id' | 'status' | 'trigger' | 'triggerType' | 'updatedAt' | 'action'
> & {
  account: { id: string };
};

/**
 * The schedule a row asks for, with the account its fires are labelled with and the function its
 * action runs, if any: a fire, the run's own workflow, starts labelled with it (its run upserts
 * the label only when it differs, as when the function changed while Temporal was down).
 */
export type WrittenSchedule = DesiredSchedule & { accountId: string; functionId?: string };

/** Where and how a deployment's schedules start their fires. */
export interface ScheduleTarget {
  taskQueue: string;
  catchupWindowMs: number;
}

/**
 * What the Schedule names each fire's workflow, and so its run: `run_<the automation id's random
 * part>`, followed by the scheduled time (`-2026-12-07T04:00:00Z`, which the scheduler appends).
 * The scheduler starts each scheduled time once under it; a start repeated is refused as a
 * duplicate, and the run's first step records a fire once whatever runs it (recordScheduledFire).
 */
const scheduledRunIdPrefix = (automationId: string) => `run_${automationId.replace(/^auto_/, '')}`;

/**
 * ALLOW_ALL: a fire is the run's own workflow, which may last as long as its action (a contract
 * call waits for its block), and no fire waits for another's end. The scheduler then tracks no fire
 * it started, so no fire can hold the schedule (schedule-stall.ts's stalls of a running fire are
 * those of schedules written before). Fires that wait for a stopped worker are dropped by the
 * run's first step once later than the catchup window (recordScheduledFire), not piled up.
 */
const scheduleOverlap = ScheduleOverlapPolicy.ALLOW_ALL;

export function desiredSchedule(target: ScheduleTarget, automation: ScheduledAutomation): WrittenSchedule {
  const trigger = automation.trigger as ScheduleTrigger;
  return {
    paused: automation.status !== 'active',
    note: scheduleNote(automation.status, trigger),
    cron: trigger.cron,
    timezone: trigger.timezone ?? 'UTC',
    workflowType: 'scheduledRun',
    workflowId: scheduledRunIdPrefix(automation.id),
    taskQueue: target.taskQueue,
    args: [automation.id],
    overlap: scheduleOverlap,
    catchupWindowMs: target.catchupWindowMs,
    accountId: automation.account.id,
    ...(automation.action.type === 'function' ? { functionId: automation.action.functionId } : {}),
  };
}

/**
 * Temporal's own attribute of a schedule, TemporalSchedulePaused, which its scheduler workflow
 * otherwise upserts in its first task, each create: one more history event and visibility write
 * on the Temporal server (issue 34).
 */
export const schedulePaused = defineSearchAttributeKey('TemporalSchedulePaused', SearchAttributeType.BOOL);

/**
 * The schedule written for a row. No policy of it ever stops firing: pause-on-failure is off (a
 * failed run is the run's, told by its notifications) and actions are not counted.
 */
export function scheduleOptions(desired: WrittenSchedule) {
  const [automationId] = desired.args as [string];
  const action: ScheduleOptionsStartWorkflowAction<ScheduledRunWorkflow> = {
    type: 'startWorkflow',
    workflowType: 'scheduledRun',
    workflowId: desired.workflowId,
    taskQueue: desired.taskQueue,
    args: [automationId],
    typedSearchAttributes: labelAttributes({
      accountId: desired.accountId,
      automationId,
      trigger: 'schedule',
      functionId: desired.functionId,
    }),
  };
  return {
    spec: { cronExpressions: [scheduleCron(desired.cron)], timezone: desired.timezone },
    action,
    policies: { overlap: desired.overlap, catchupWindow: desired.catchupWindowMs, pauseOnFailure: false },
    state: { paused: desired.paused, note: desired.note },
  };
}

/** What the schedule was last written with: its row's status and spec, read by an operator too. */
const scheduleNote = (status: string, trigger: ScheduleTrigger) =>
  `automation ${status}: cron "${trigger.cron}" in ${trigger.timezone ?? 'UTC'}`;

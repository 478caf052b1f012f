import { ScheduleOverlapPolicy, type ScheduleOptionsStartWorkflowAction } from '@temporalio/client';
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
import { labelAttributes } from '../../shared/workflow-attributes.ts';
import type { ScheduledFireWorkflow } from '../../shared/workflow-signatures.ts';
import type { Automation } from '../model/automation.entity.ts';
import type { ScheduleTrigger } from '../model/trigger.schemas.ts';
import { scheduleCron } from '../model/cron.ts';
import type { DesiredSchedule } from './schedule-drift.ts';

/**
 * What a schedule is written from: an automation's entity, or the reconciler's plain row of it
 * (automation.sql.ts, scheduleRowsPage).
 */
export type ScheduledAutomation = Pick<Automation, 'id' | 'status' | 'trigger' | 'triggerType' | 'updatedAt'> & {
  account: { id: string };
};

/** The schedule a row asks for, with the account its fires are labelled with. */
export type WrittenSchedule = DesiredSchedule & { accountId: string };

/** Where and how a deployment's schedules start their fires. */
export interface ScheduleTarget {
  taskQueue: string;
  catchupWindowMs: number;
}

export function desiredSchedule(target: ScheduleTarget, automation: ScheduledAutomation): WrittenSchedule {
  const trigger = automation.trigger as ScheduleTrigger;
  return {
    paused: automation.status !== 'active',
    note: scheduleNote(automation.status, trigger),
    cron: trigger.cron,
    timezone: trigger.timezone ?? 'UTC',
    workflowType: 'scheduledFire',
    workflowId: automation.id,
    taskQueue: target.taskQueue,
    args: [automation.id],
    catchupWindowMs: target.catchupWindowMs,
    accountId: automation.account.id,
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
  const action: ScheduleOptionsStartWorkflowAction<ScheduledFireWorkflow> = {
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

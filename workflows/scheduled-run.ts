import { workflowInfo } from '@temporalio/workflow';
import { actOnRun } from './run-action.ts';
import { scheduledTime } from './scheduled-time.ts';
import type { ScheduledRunWorkflow } from '../src/shared/workflow-signatures.ts';

/**
 * One fire of a schedule trigger, started by the automation's Schedule, and the run it records:
 * one workflow a fire, as a run started over the API is. Its id, which the Schedule makes of the
 * automation's and the scheduled time (src/automations/schedule/schedule-options.control.ts), is
 * the run's id: the run's first step records the fire under it, once per scheduled time whatever
 * retries or repeats (src/automations/runs/fires.ts, recordScheduledFire), then runs the action
 * as `runAction` does; a fire that recorded no run (its automation not active at its time, or too
 * late) ends there. The Schedule's overlap policy is ALLOW_ALL: a long action never holds back the
 * next fire, and late fires are dropped by the first step instead.
 */
export const scheduledRun: ScheduledRunWorkflow = async (automationId) =>
  actOnRun(workflowInfo().workflowId, { automationId, scheduledAt: scheduledTime() });

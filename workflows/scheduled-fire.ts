import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
import { proxyLocalActivities, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import { startAction } from './start-action.ts';
import type { ScheduledFireWorkflow } from '../src/shared/workflow-signatures.ts';

/** A local activity: one row written, without a round trip through the task queue. */
const { recordScheduledRun } = proxyLocalActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { maximumAttempts: 10, initialInterval: '500 milliseconds', maximumInterval: '10 seconds' },
});

/** Set by Temporal on every workflow a schedule starts. */
const scheduledStartTime = defineSearchAttributeKey('TemporalScheduledStartTime', SearchAttributeType.DATETIME);

/**
 * One fire of a schedule trigger (the schedule's id is the automation's). The scheduled time
 * names the run, so a fire recorded twice is still one run. The fire ends once its action has
 * started: the schedule's overlap policy (skip) keeps fires from piling up behind a slow worker,
 * while a long action never costs the next fire.
 */
export const scheduledFire: ScheduledFireWorkflow = async (automationId) => {
  const info = workflowInfo();
  const scheduledAt = (info.typedSearchAttributes.get(scheduledStartTime) ?? info.startTime).toISOString();
  const run = await recordScheduledRun(automationId, scheduledAt);
  if (run) await startAction(run);
};

import { proxyLocalActivities } from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import { scheduledTime } from './scheduled-time.ts';
import { startAction } from './start-action.ts';
import type { ScheduledFireWorkflow } from '../src/shared/workflow-signatures.ts';

/** A local activity: one row written, without a round trip through the task queue. */
const { recordScheduledRun } = proxyLocalActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { maximumAttempts: 10, initialInterval: '500 milliseconds', maximumInterval: '10 seconds' },
});

/**
 * One fire of a schedule trigger as schedules written before issue 50 started it (the schedule's
 * id is the automation's): it records the run, starts its action as a child (`runAction`) and ends.
 * Schedules start `scheduledRun` now, one workflow a fire; this one stays for the fires in flight
 * when a deployment changes (the reconciler rewrites each schedule, sweep-automations.ts), and
 * their histories replay on it (test/integration/scheduled-fire-replay.test.ts).
 */
export const scheduledFire: ScheduledFireWorkflow = async (automationId) => {
  const run = await recordScheduledRun(automationId, scheduledTime());
  if (run) await startAction(run);
};

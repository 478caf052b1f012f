import { proxyLocalActivities } from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import { executeFunction } from './execute-function.ts';
import { startAction } from './start-action.ts';
import { startNotifications } from './start-notifications.ts';
import { startOnce } from './start-once.ts';

const { unstartedExecutions, overdueRuns, undispatchedNotifications } = proxyLocalActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { maximumAttempts: 3, initialInterval: '1 second' },
});

/**
 * One pass of the recovery schedule: starts the workflow of every execution, automation run and
 * notification recorded but, perhaps, never started, whatever recorded it. The record's id is the
 * workflow id, so what exists, or existed, stays one workflow.
 */
export async function recoverySweep(): Promise<void> {
  await Promise.all((await overdueRuns()).map(startAction));
  for (const { executionId, labels } of await unstartedExecutions())
    await startOnce(executeFunction, executionId, labels);
  // Last: a sweep that was running when its workers were upgraded replays its earlier steps as
  // they were recorded, then takes this one.
  await startNotifications(await undispatchedNotifications());
}

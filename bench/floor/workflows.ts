import { proxyLocalActivities } from '@temporalio/workflow';
import type { FloorActivities } from './activities.ts';

const { noop } = proxyLocalActivities<FloorActivities>({ startToCloseTimeout: '10 seconds' });

/** Temporal's floor for one run: a workflow whose first task runs one no-op local activity. */
export async function floorWorkflow(): Promise<void> {
  await noop();
}

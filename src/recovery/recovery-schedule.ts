import { ScheduleAlreadyRunning, ScheduleOverlapPolicy, type Client } from '@temporalio/client';
import type { recoverySweep } from '../../workflows/recovery-sweep.ts';

/** One recovery schedule per task queue, as deployments sharing a Temporal namespace have their own. */
export const recoveryScheduleId = (taskQueue: string) => `recovery_${taskQueue}`;

/**
 * Creates the schedule of the recovery sweep unless it exists (every API start asks): whichever
 * process dies between writing a row and starting its workflow, the sweep starts it.
 */
export async function ensureRecoverySchedule(client: Client, taskQueue: string, intervalMs: number) {
  try {
    await client.schedule.create<typeof recoverySweep>({
      scheduleId: recoveryScheduleId(taskQueue),
      spec: { intervals: [{ every: intervalMs }] },
      action: { type: 'startWorkflow', workflowType: 'recoverySweep', taskQueue, args: [] },
      policies: { overlap: ScheduleOverlapPolicy.SKIP },
    });
  } catch (error) {
    if (!(error instanceof ScheduleAlreadyRunning)) throw error;
  }
}

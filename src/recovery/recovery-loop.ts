import { ScheduleNotFoundError, type Client } from '@temporalio/client';
import type { RecoveryLoopWorkflow } from '../shared/workflow-signatures.ts';

/** One reconciler per task queue, as deployments sharing a Temporal namespace have their own. */
export const recoveryWorkflowId = (taskQueue: string) => `recovery_${taskQueue}`;

/**
 * Starts the reconciler's loop unless it runs (every API start asks): whichever process dies
 * between writing a row and starting its workflow, the loop starts it. The schedule that drove
 * the sweep before the loop did (same id) is deleted: two reconcilers would each do every pass.
 */
export async function ensureRecoveryLoop(client: Client, taskQueue: string, intervalMs: number) {
  const id = recoveryWorkflowId(taskQueue);
  await client.schedule
    .getHandle(id)
    .delete()
    .catch((error: unknown) => {
      if (!(error instanceof ScheduleNotFoundError)) throw error;
    });
  await client.workflow.start<RecoveryLoopWorkflow>('recoveryLoop', {
    workflowId: id,
    taskQueue,
    args: [intervalMs],
    workflowIdConflictPolicy: 'USE_EXISTING',
  });
}

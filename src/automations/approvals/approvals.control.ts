import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { approvalDecidedSignal } from '../../shared/approval-signal.ts';

/**
 * Wakes the run's workflow to read its decisions (approval-steps.ts settleApproval). A workflow
 * that ended, or has not started, needs nothing: it reads the rows when it gets there.
 */
export async function signalDecision(client: Client, runId: string): Promise<void> {
  await client.workflow
    .getHandle(runId)
    .signal(approvalDecidedSignal)
    .catch((error: unknown) => {
      if (!(error instanceof WorkflowNotFoundError)) throw error;
    });
}

import { WorkflowNotFoundError, type Client } from '@temporalio/client';

/** Asks a workflow to cancel; one that already ended, or never started, needs nothing. */
export async function cancelWorkflow(client: Client, workflowId: string): Promise<void> {
  await client.workflow
    .getHandle(workflowId)
    .cancel()
    .catch((error: unknown) => {
      if (!(error instanceof WorkflowNotFoundError)) throw error;
    });
}

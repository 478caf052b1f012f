import { ApplicationFailure } from '@temporalio/workflow';

/** Test-only: a workflow that fails by itself, with its (sealed) input as the failure message. */
export async function failingWorkflow(message: string): Promise<never> {
  throw ApplicationFailure.nonRetryable(message);
}

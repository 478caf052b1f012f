import { upsertSearchAttributes } from '@temporalio/workflow';
import type { ExecutionOutcome } from '../activities/index.ts';
import { endStatus } from '../src/shared/workflow-attributes.ts';
import { runFunction } from './run-function.ts';

/** One invocation: the workflow id is the execution id, the input that id alone. */
export async function executeFunction(executionId: string): Promise<ExecutionOutcome> {
  const outcome = await runFunction(executionId);
  // The workflow completes either way: the attribute is what makes a failed run findable.
  upsertSearchAttributes([endStatus(outcome.status)]);
  return outcome;
}

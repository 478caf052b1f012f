import { upsertSearchAttributes } from '@temporalio/workflow';
import { endStatus } from '../src/shared/workflow-attributes.ts';
import { runFunction } from './run-function.ts';
import type { ExecuteFunctionWorkflow } from '../src/shared/workflow-signatures.ts';

/** One invocation: the workflow id is the execution id, the input that id alone. */
export const executeFunction: ExecuteFunctionWorkflow = async (executionId) => {
  const outcome = await runFunction(executionId);
  // The workflow completes either way: the attribute is what makes a failed run findable.
  upsertSearchAttributes([endStatus(outcome.status)]);
  return outcome;
};

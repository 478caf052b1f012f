import type { ExecutionOutcome } from '../activities/index.ts';
import { runFunction } from './run-function.ts';

/** One invocation: the workflow id is the execution id, the input that id alone. */
export async function executeFunction(executionId: string): Promise<ExecutionOutcome> {
  return runFunction(executionId);
}

import { isCancellation, proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';

const { runExecution } = proxyActivities<Activities>({
  // The sandbox stops user code at the function's timeout (300 s at most); this bounds the rest.
  startToCloseTimeout: '330 seconds',
  heartbeatTimeout: '10 seconds',
  // Failures of user code are results, not errors: only a lost worker or database is retried.
  retry: { maximumAttempts: 3, initialInterval: '1 second', backoffCoefficient: 2 },
});

const { failExecution } = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { maximumAttempts: 10, initialInterval: '1 second', maximumInterval: '30 seconds' },
});

/** One invocation: the workflow id is the execution id, the input that id alone. */
export async function executeFunction(executionId: string): Promise<string> {
  try {
    return await runExecution(executionId);
  } catch (error) {
    // Cancelled because its function was deleted: the record is gone with it.
    if (isCancellation(error)) throw error;
    const reason = error instanceof Error ? error.message : String(error);
    await failExecution(executionId, `The execution could not be run: ${reason}`);
    return 'failed';
  }
}

import { isCancellation, log, proxyLocalActivities, sleep } from '@temporalio/workflow';
import type { Activities, ExecutionOutcome, RunAttempt } from '../activities/index.ts';

/**
 * The user code runs as a local activity in the workflow's first task: no activity task travels
 * through the server. A run longer than the workflow task timeout keeps its task alive (the SDK
 * heartbeats it); if the process dies, the task times out and another worker runs the code again
 * (an execution that already recorded its outcome is not run twice). The sandbox stops the code
 * at the function's timeout (300 s at most); this bounds the rest.
 */
const { runExecution } = proxyLocalActivities<Activities>({
  startToCloseTimeout: '330 seconds',
  // Failures of user code are outcomes, not errors: only a lost database is retried, for about
  // 90 s (1, 2, 4, 8, then every 15 s), long enough for PostgreSQL to restart or fail over.
  retry: { maximumAttempts: 10, initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '15 seconds' },
});

const { failExecution } = proxyLocalActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { maximumAttempts: 10, initialInterval: '1 second', maximumInterval: '30 seconds' },
});

const lostMessage = 'The execution could not be run: the service lost its database for too long. Retry it.';

/** Waits before trying a deferred run again: soon at first, then at most every 2 s. */
const firstPauseMs = 100;
const longestPauseMs = 2_000;

/**
 * Runs one recorded execution and returns how it ended; it never stays running. While its account
 * already runs its share of functions on the worker, the workflow waits on a timer (holding no
 * worker slot) and tries again.
 */
export async function runFunction(executionId: string): Promise<ExecutionOutcome> {
  for (let pauseMs = firstPauseMs; ; pauseMs = Math.min(pauseMs * 2, longestPauseMs)) {
    const attempt = await attemptRun(executionId);
    if (attempt.status !== 'deferred') return attempt;
    await sleep(pauseMs);
  }
}

async function attemptRun(executionId: string): Promise<RunAttempt> {
  try {
    return await runExecution(executionId);
  } catch (error) {
    // Cancelled because its function was deleted: the record is gone with it.
    if (isCancellation(error)) throw error;
    // The cause (an address, a driver's words) is the operator's, in the worker's log; the
    // function's owner reads only that the service failed it.
    log.warn('execution lost', { executionId, error: error instanceof Error ? error.message : String(error) });
    return await failExecution(executionId, lostMessage);
  }
}

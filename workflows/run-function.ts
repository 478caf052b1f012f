import { isCancellation, log, proxyLocalActivities, sleep } from '@temporalio/workflow';
import type { Activities, RunAttempt } from '../activities/index.ts';
import type { ExecutionOutcome } from '../src/shared/outcomes.ts';

/**
 * The user code runs as a local activity in the workflow's first task: no activity task travels
 * through the server. A run longer than the workflow task timeout keeps its task alive (the SDK
 * heartbeats it); if the process dies, the task times out and another worker runs the code again
 * (an execution that already recorded its outcome is not run twice). The sandbox stops the code
 * at the function's timeout (300 s at most); this bounds the rest. An attempt runs at once or
 * answers `deferred`: it never waits for its account's share inside this limit.
 */
const runOptions = {
  // Failures of user code are outcomes, not errors: only a lost database is retried, for about
  // 90 s (1, 2, 4, 8, then every 15 s), long enough for PostgreSQL to restart or fail over.
  retry: { maximumAttempts: 10, initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '15 seconds' },
} as const;
const { runExecution } = proxyLocalActivities<Activities>({ startToCloseTimeout: '330 seconds', ...runOptions });

/** Once its turn is claimed, the attempt's limit is the function's own timeout and a margin. */
const runWithin = (runLimitMs: number) =>
  proxyLocalActivities<Activities>({ startToCloseTimeout: runLimitMs, ...runOptions }).runExecution;

/** A deferred run's wait in the worker for its account's share: 5 s at most, then its timer. */
const { claimRunTurn } = proxyLocalActivities<Activities>({
  startToCloseTimeout: '60 seconds',
  retry: { maximumAttempts: 3, initialInterval: '1 second', backoffCoefficient: 2 },
});

const { failExecution } = proxyLocalActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { maximumAttempts: 10, initialInterval: '1 second', maximumInterval: '30 seconds' },
});

const lostMessage = 'The execution could not be run: the service lost its database for too long. Retry it.';

/** Waits between a deferred run's turns: 1 s at first, doubling to 2 minutes. */
const firstPauseMs = 1_000;
const longestPauseMs = 120_000;

/**
 * Runs one recorded execution and returns how it ended; it never stays running. While its account
 * already runs its share of functions on the worker, it waits for a slot in the worker (a while)
 * and then on a timer (holding no worker slot), longer each time; each turn reads only its
 * status. The slot is taken before the attempt that runs the code starts, so a run that waited
 * long still has its whole timeout. `first`: the first attempt, when a step before made it.
 */
export async function runFunction(executionId: string, first?: RunAttempt): Promise<ExecutionOutcome> {
  let attempt = first ?? (await orFail(() => runExecution(executionId), executionId));
  for (let pauseMs = firstPauseMs; attempt.status === 'deferred'; pauseMs = Math.min(pauseMs * 2, longestPauseMs)) {
    const turn = await orFail(() => claimRunTurn(executionId), executionId);
    if (turn.status === 'claimed') {
      attempt = await orFail(() => runWithin(turn.runLimitMs)(executionId), executionId);
      continue;
    }
    if (turn.status !== 'deferred') return turn;
    await sleep(pauseMs);
  }
  return attempt;
}

/** A step's answer; when it keeps failing, the execution ends failed (it never stays running). */
async function orFail<T>(step: () => Promise<T>, executionId: string): Promise<T | ExecutionOutcome> {
  try {
    return await step();
  } catch (error) {
    // Cancelled because its function was deleted: the record is gone with it.
    if (isCancellation(error)) throw error;
    // The cause (an address, a driver's words) is the operator's, in the worker's log; the
    // function's owner reads only that the service failed it.
    log.warn('execution lost', { executionId, error: error instanceof Error ? error.message : String(error) });
    return await failExecution(executionId, lostMessage);
  }
}

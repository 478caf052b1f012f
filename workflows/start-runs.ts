import { isCancellation, log, patched, proxyLocalActivities } from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import type { FiredRun } from '../activities/automations.ts';
import { startAction } from './start-action.ts';

/**
 * A local activity: a round's starts are made in the workflow's own task, which adds no task of
 * its own. A start Temporal keeps refusing leaves its run to the reconciler, which starts every run
 * recorded and not started (workflows/recovery-sweep.ts): the loop that fired it goes on.
 */
const { startRuns } = proxyLocalActivities<Activities>({
  startToCloseTimeout: '60 seconds',
  retry: { maximumAttempts: 3, initialInterval: '1 second' },
});

/** Runs handed to one start activity: its input and its marker in history stay small. */
const runsPerStart = 500;

/**
 * Names the change that made a shared loop start runs through the client instead of as its
 * children: histories recorded before it replay as they ran (children), later ones as now.
 */
const startedThroughClient = 'runs-started-through-client';

/**
 * Starts the actions of runs that the follower, a price poller or the reconciler fired. They are
 * no children of the loop: Temporal counts a parent's children until each closes and refuses a
 * start past `limit.numPendingChildExecutions.error` (2,000 by default), which would stall a loop
 * shared by every account behind one account's long runs (docs/architecture.md). `again`: the
 * reconciler's, which starts again a run whose workflow closed while its row still runs.
 */
export async function startFiredRuns(runs: FiredRun[], taskQueue?: string, again = false): Promise<void> {
  if (runs.length === 0) return;
  if (!patched(startedThroughClient)) {
    await Promise.all(runs.map((run) => startAction(run, taskQueue)));
    return;
  }
  for (let at = 0; at < runs.length; at += runsPerStart) {
    const batch = runs.slice(at, at + runsPerStart);
    try {
      await startRuns(batch, taskQueue, again);
    } catch (error) {
      if (isCancellation(error)) throw error;
      log.warn('runs recorded, their start left to the reconciler', { runs: batch.length, error: String(error) });
    }
  }
}

import type { FiredRun } from '../activities/automations.ts';
import { runAction } from './run-action.ts';
import { startOnce } from './start-once.ts';

/**
 * Starts a fired run's action under its run id. A run whose action closed without ending the row
 * (cancelled while its transaction is still to land) is started again by the sweep: the run's row,
 * not its workflow, says whether it ended.
 */
export const startAction = (run: FiredRun, taskQueue?: string) =>
  startOnce(runAction, run.runId, run.labels, taskQueue, 'ALLOW_DUPLICATE');

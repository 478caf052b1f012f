import type { FiredRun } from '../activities/automations.ts';
import { runAction } from './run-action.ts';
import { startOnce } from './start-once.ts';

/** Starts a fired run's action, once: the run id is the workflow id (see startOnce). */
export const startAction = (run: FiredRun, taskQueue?: string) =>
  startOnce(runAction, run.runId, run.labels, taskQueue);

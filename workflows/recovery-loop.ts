import { continueAsNew, isCancellation, log, sleep, workflowInfo } from '@temporalio/workflow';
import { recoverySweep } from './recovery-sweep.ts';
import type { RecoveryLoopWorkflow } from '../src/shared/workflow-signatures.ts';

/** Passes made before the loop continues as new, unless the server asks for it sooner. */
const passesPerRun = 100;

/**
 * The reconciler: one pass (recoverySweep), a timer, and again, for ever. A timer rather than a
 * Temporal schedule: the reconciler repairs schedules whose scheduler stopped moving on
 * (schedule-stall.ts), so it must not hang on a scheduler itself. A pass that fails (an activity
 * out of attempts) is logged and the next one runs at its time: one failure never ends the loop.
 */
export const recoveryLoop: RecoveryLoopWorkflow = async (intervalMs) => {
  for (let pass = 0; pass < passesPerRun && !workflowInfo().continueAsNewSuggested; pass++) {
    try {
      await recoverySweep();
    } catch (error) {
      if (isCancellation(error)) throw error;
      log.warn('a recovery pass failed; the next one runs at its time', { error: String(error) });
    }
    await sleep(intervalMs);
  }
  return continueAsNew<RecoveryLoopWorkflow>(intervalMs);
};

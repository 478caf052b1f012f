import type { Execution } from './execution.entity.ts';
import { executionStatus, type ExecutionOutcome } from '../shared/outcomes.ts';

/**
 * An attempt that did not run: the execution's account already runs its share of functions on
 * this worker (NEOFLOW_ACCOUNT_CONCURRENCY). The workflow asks for a turn, then tries again.
 */
export interface Deferred {
  status: 'deferred';
}

/** What one attempt at a run answers its workflow. */
export type RunAttempt = ExecutionOutcome | Deferred;

export const deferred: Deferred = { status: 'deferred' };

export const deletedOutcome: ExecutionOutcome = { status: 'deleted', durationMs: null, errorName: null };

/** The outcome of an execution that ended. */
export function outcomeOf(execution: Pick<Execution, 'status' | 'duration' | 'error'>): ExecutionOutcome {
  return {
    status: execution.status === executionStatus.completed ? executionStatus.completed : executionStatus.failed,
    durationMs: execution.duration ?? null,
    errorName: execution.error?.name ?? null,
  };
}

import type { Execution } from './execution.entity.ts';
import { executionStatus, type ExecutionOutcome } from '../shared/outcomes.ts';

/**
 * An attempt that did not run: no run slot of this worker is free for the execution's account
 * (every one runs, or the account runs NEOFLOW_ACCOUNT_CONCURRENCY if that is set; account-slots.ts).
 * The workflow asks for a turn, then tries again.
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

import type { Execution } from './execution.entity.ts';
import { executionStatus } from '../shared/outcomes.ts';

/**
 * How a run ended, as its workflow returns it (and the Web UI shows it): never the result value,
 * a log line or anything else the code produced, which may hold a secret it read.
 */
export interface ExecutionOutcome {
  /** `deleted`: its function was deleted, and the record with it. */
  status: typeof executionStatus.completed | typeof executionStatus.failed | 'deleted';
  durationMs: number | null;
  /** The error's name when it failed (`TimeoutError`, `TypeError`, …). */
  errorName: string | null;
}

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

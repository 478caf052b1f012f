import type { Execution } from './execution.entity.ts';

/**
 * How a run ended, as its workflow returns it (and the Web UI shows it): never the result value,
 * a log line or anything else the code produced, which may hold a secret it read.
 */
export interface ExecutionOutcome {
  /** `deleted`: its function was deleted, and the record with it. */
  status: 'completed' | 'failed' | 'deleted';
  durationMs: number | null;
  /** The error's name when it failed (`TimeoutError`, `TypeError`, …). */
  errorName: string | null;
}

export const deletedOutcome: ExecutionOutcome = { status: 'deleted', durationMs: null, errorName: null };

/** The outcome of an execution that ended. */
export function outcomeOf(execution: Execution): ExecutionOutcome {
  return {
    status: execution.status === 'completed' ? 'completed' : 'failed',
    durationMs: execution.duration ?? null,
    errorName: execution.error?.name ?? null,
  };
}

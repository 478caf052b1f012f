import type { ExecutionOutcome } from '../shared/outcomes.ts';
import type { Execution } from './execution.entity.ts';

/**
 * How a run ended, as a synchronous invoke answers it: the outcome its workflow returns, and what
 * that outcome leaves out of Temporal's history (the row's end and the result, which may hold what
 * the code read from a secret).
 */
export interface RunEnd {
  outcome: ExecutionOutcome;
  execution: Execution;
  result: unknown;
}

interface LocalRun {
  /** Taken once: a retried attempt reads the row as stored. */
  execution: Execution | undefined;
  recorded: Promise<unknown>;
  onEnd(ended: RunEnd): void;
  onDeferred(): void;
}

/**
 * The runs an API process records and starts eagerly (the server hands their first workflow task
 * straight back, so their code runs in this process, on its own worker). One instance is made by
 * the process that hosts both and given to each: its invokes (executions.service.ts) and its
 * worker's activities (run-execution.ts); a worker process has none. The workflow starts while the
 * row is still being written: the local activity takes the row as built here instead of reading it
 * back, once `recorded` says it is stored, and hands the run's end to the waiting request without
 * a long poll of the history or a re-read of the row.
 */
export class LocalRuns {
  readonly #runs = new Map<string, LocalRun>();

  /** Registers a run before its workflow starts; `forget` once nobody waits for it any more. */
  expect(execution: Execution, recorded: Promise<unknown>) {
    let onEnd!: (ended: RunEnd) => void;
    let onDeferred!: () => void;
    const ended = new Promise<RunEnd>((resolve) => (onEnd = resolve));
    /** Its next attempt may run in another process: the waiter then also follows the workflow. */
    const deferred = new Promise<void>((resolve) => (onDeferred = resolve));
    this.#runs.set(execution.id, { execution, recorded, onEnd, onDeferred });
    return { ended, deferred, forget: () => this.#runs.delete(execution.id) };
  }

  /**
   * The row of a run registered here, once stored; undefined when the run is not this process's
   * (taken over after the process that started it died).
   */
  async take(executionId: string): Promise<Execution | undefined> {
    const run = this.#runs.get(executionId);
    const execution = run?.execution;
    if (!run || !execution) return undefined;
    run.execution = undefined;
    await run.recorded;
    return execution;
  }

  /** Tells a synchronous invoke waiting here that the run waits for its account's share. */
  deferred(executionId: string) {
    this.#runs.get(executionId)?.onDeferred();
  }

  /** Hands the run's end to a synchronous invoke waiting here, if there is one. */
  ended(ended: RunEnd) {
    this.#runs.get(ended.execution.id)?.onEnd(ended);
  }
}

import type { Execution } from './execution.entity.ts';

/** An execution that ended in this process, with its result: all a synchronous invoke answers. */
export interface EndedExecution {
  execution: Execution;
  result: unknown;
}

/**
 * A run this process records and starts eagerly (the server hands its first workflow task straight
 * back, so its code runs here). The workflow starts while the row is still being written: the
 * local activity takes the row as built here instead of reading it back, once `recorded` says it
 * is stored, and hands the end back without a long poll of the history or a re-read of the row.
 */
interface LocalRun {
  /** Taken once: a retried attempt reads the row as stored. */
  execution: Execution | undefined;
  recorded: Promise<unknown>;
  onEnd(ended: EndedExecution): void;
  onDeferred(): void;
}

const runs = new Map<string, LocalRun>();

/** Registers a run before its workflow starts; `forget` once nobody waits for it any more. */
export function expectLocalRun(execution: Execution, recorded: Promise<unknown>) {
  let onEnd!: (ended: EndedExecution) => void;
  let onDeferred!: () => void;
  const ended = new Promise<EndedExecution>((resolve) => (onEnd = resolve));
  /** Its next attempt may run in another process: the waiter then also follows the workflow. */
  const deferred = new Promise<void>((resolve) => (onDeferred = resolve));
  runs.set(execution.id, { execution, recorded, onEnd, onDeferred });
  return { ended, deferred, forget: () => runs.delete(execution.id) };
}

/**
 * The row of a run registered here, once stored; undefined when the run is not this process's (a
 * worker process, or a run taken over after the process that started it died).
 */
export async function takeLocalExecution(executionId: string): Promise<Execution | undefined> {
  const run = runs.get(executionId);
  const execution = run?.execution;
  if (!run || !execution) return undefined;
  run.execution = undefined;
  await run.recorded;
  return execution;
}

/** Tells a synchronous invoke waiting in this process that the run waits for its account's share. */
export function announceDeferred(executionId: string) {
  runs.get(executionId)?.onDeferred();
}

/** Hands an end to a synchronous invoke waiting in this process, if there is one. */
export function announceEnd(ended: EndedExecution) {
  runs.get(ended.execution.id)?.onEnd(ended);
}

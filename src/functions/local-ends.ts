import type { Execution } from './execution.entity.ts';

/** An execution that ended in this process, with its result: all a synchronous invoke answers. */
export interface EndedExecution {
  execution: Execution;
  result: unknown;
}

const waiting = new Map<string, (ended: EndedExecution) => void>();

/**
 * Waits for an execution to end in this process: the API starts a synchronous invoke's workflow
 * eagerly, so its own worker takes the first task and runs the code, and the answer needs no long
 * poll of the history nor a re-read of the row. Call before the workflow starts; `stop` when done.
 */
export function expectEnd(executionId: string): { ended: Promise<EndedExecution>; stop(): void } {
  let resolveEnded!: (ended: EndedExecution) => void;
  const ended = new Promise<EndedExecution>((resolve) => (resolveEnded = resolve));
  waiting.set(executionId, resolveEnded);
  return { ended, stop: () => waiting.delete(executionId) };
}

/** Hands an end to its waiter in this process, if there is one; nothing is kept otherwise. */
export function announceEnd(ended: EndedExecution) {
  waiting.get(ended.execution.id)?.(ended);
  waiting.delete(ended.execution.id);
}

import { type IsolateSource, prepareIsolate, type PreparedIsolate } from './prepared-isolate.ts';

/**
 * Keeps a few isolates prepared between runs, so that a run starts with its context and bootstrap
 * already made (1.5–2.5 ms off its path, measured in docs/performance.md). A spare has run no user code: each still serves exactly one
 * run and is disposed after it, as a fresh one would be. Spares are made when a run has ended, so a
 * process that runs no code prepares nothing; a run that finds no spare prepares its own.
 */
export class SpareIsolates implements IsolateSource {
  readonly #ready: PreparedIsolate[] = [];
  #preparing = 0;
  #disposed = false;

  readonly #memoryLimitMb: number;
  readonly #count: number;

  constructor(memoryLimitMb: number, count: number) {
    this.#memoryLimitMb = memoryLimitMb;
    this.#count = count;
  }

  /** Spares prepared and not yet taken. */
  get ready(): number {
    return this.#ready.length;
  }

  take(memoryLimitMb: number): Promise<PreparedIsolate> {
    if (memoryLimitMb !== this.#memoryLimitMb) return prepareIsolate(memoryLimitMb);
    const spare = this.#ready.shift();
    return spare ? Promise.resolve(spare) : prepareIsolate(memoryLimitMb);
  }

  /**
   * Prepares spares up to the count, after the current callbacks: a run calls this once its answer
   * is written, so the ~1 ms of making an isolate (synchronous, on this thread) delays no run.
   */
  replenish() {
    setImmediate(() => this.#fill());
  }

  /** Disposes the spares; a run that takes one afterwards prepares its own. */
  dispose() {
    this.#disposed = true;
    for (const spare of this.#ready.splice(0)) spare.isolate.dispose();
  }

  #fill() {
    while (!this.#disposed && this.#ready.length + this.#preparing < this.#count) {
      this.#preparing += 1;
      prepareIsolate(this.#memoryLimitMb).then(
        (prepared) => {
          this.#preparing -= 1;
          if (this.#disposed) prepared.isolate.dispose();
          else this.#ready.push(prepared);
        },
        // A spare that could not be made (the process is short of memory) is simply not kept.
        () => {
          this.#preparing -= 1;
        },
      );
    }
  }
}

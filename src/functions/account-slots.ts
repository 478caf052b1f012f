/**
 * How many runs of each account this process runs at once (`perAccount`), and how many more wait
 * here for one of those to end (`queuedPerAccount`): a handover in process, without a round trip.
 * Runs beyond both do not wait here, holding a worker slot: their workflow waits on a timer and
 * tries again. So one account's burst leaves most of the worker's slots, and its CPU, to others.
 */
export class AccountSlots {
  readonly #running = new Map<string, number>();
  readonly #queued = new Map<string, (() => void)[]>();
  readonly #perAccount: number;
  readonly #queuedPerAccount: number;

  constructor(perAccount: number, queuedPerAccount: number) {
    this.#perAccount = perAccount;
    this.#queuedPerAccount = queuedPerAccount;
  }

  /**
   * A release for a slot of the account, once it has one; undefined at once when its share runs
   * and its queue is full, or when `signal` aborts while it waits.
   */
  async take(accountId: string, signal?: AbortSignal): Promise<(() => void) | undefined> {
    const running = this.#running.get(accountId) ?? 0;
    if (running < this.#perAccount) {
      this.#running.set(accountId, running + 1);
      return this.#releaseOf(accountId);
    }
    const queue = this.#queued.get(accountId) ?? [];
    if (queue.length >= this.#queuedPerAccount || signal?.aborted) return undefined;
    this.#queued.set(accountId, queue);
    return new Promise((resolve) => {
      const abort = () => {
        queue.splice(queue.indexOf(wake), 1);
        resolve(undefined);
      };
      // The slot passes straight from the run that ended: the running count does not change.
      const wake = () => {
        signal?.removeEventListener('abort', abort);
        resolve(this.#releaseOf(accountId));
      };
      queue.push(wake);
      signal?.addEventListener('abort', abort, { once: true });
    });
  }

  #releaseOf(accountId: string): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.#queued.get(accountId)?.shift();
      if (next) return next();
      this.#queued.delete(accountId);
      const left = (this.#running.get(accountId) ?? 1) - 1;
      if (left > 0) this.#running.set(accountId, left);
      else this.#running.delete(accountId);
    };
  }
}

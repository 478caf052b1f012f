type Wake = (release: () => void) => void;

/** How runs share a process: see `AccountSlots`. */
interface SlotLimits {
  /** Runs of one account at once. */
  perAccount: number;
  /** Runs of one account that may wait here for a slot, beyond those running. */
  queuedPerAccount: number;
  /**
   * Runs of every account that may wait here at once: each holds a worker's workflow task while it
   * waits, so the room is sized from the process's slots, and two bursting accounts cannot fill it.
   */
  queued: number;
  /** Runs of every account at once: what bounds the isolates, and their memory, of the process. */
  running: number;
}

/**
 * How many runs of each account this process runs at once, how many of all accounts, and how many
 * more of each account wait here for a slot: a handover in process, without a round trip. Runs
 * beyond an account's waiting room do not wait here, holding a worker slot: their workflow waits
 * on a timer and tries again. So one account's burst leaves most of the worker's slots, and its
 * CPU, to others; and when every slot of the process runs, a freed one goes to the accounts that
 * wait in turn, never twice in a row to the same one while another waits.
 */
export class AccountSlots {
  readonly #running = new Map<string, number>();
  /** Accounts with runs waiting, in the order they are served next. */
  readonly #queued = new Map<string, Wake[]>();
  readonly #limits: SlotLimits;
  #total = 0;
  #waiting = 0;

  constructor(limits: SlotLimits) {
    this.#limits = limits;
  }

  /**
   * A release for a slot of the account, once it has one; undefined at once when its share runs
   * and its waiting room is full, or when `signal` aborts while it waits.
   */
  async take(accountId: string, signal?: AbortSignal): Promise<(() => void) | undefined> {
    if (!this.#queued.has(accountId) && this.#canStart(accountId)) return this.#start(accountId);
    const queue = this.#queued.get(accountId) ?? [];
    const full = queue.length >= this.#limits.queuedPerAccount || this.#waiting >= this.#limits.queued;
    if (full || signal?.aborted) return undefined;
    this.#queued.set(accountId, queue);
    this.#waiting += 1;
    return new Promise((resolve) => {
      const abort = () => {
        this.#waiting -= 1;
        queue.splice(queue.indexOf(wake), 1);
        if (queue.length === 0) this.#queued.delete(accountId);
        resolve(undefined);
      };
      const wake: Wake = (release) => {
        this.#waiting -= 1;
        signal?.removeEventListener('abort', abort);
        resolve(release);
      };
      queue.push(wake);
      signal?.addEventListener('abort', abort, { once: true });
    });
  }

  /** A release at once if the account's share and the process have a free slot; never waits. */
  tryTake(accountId: string): (() => void) | undefined {
    return !this.#queued.has(accountId) && this.#canStart(accountId) ? this.#start(accountId) : undefined;
  }

  #canStart(accountId: string): boolean {
    return this.#total < this.#limits.running && (this.#running.get(accountId) ?? 0) < this.#limits.perAccount;
  }

  #start(accountId: string): () => void {
    this.#total += 1;
    this.#running.set(accountId, (this.#running.get(accountId) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#total -= 1;
      const left = this.#running.get(accountId)! - 1;
      if (left > 0) this.#running.set(accountId, left);
      else this.#running.delete(accountId);
      this.#wakeWaiting();
    };
  }

  /** Starts waiting runs while slots are free, one per account in turn. */
  #wakeWaiting() {
    for (const [accountId, queue] of this.#queued) {
      if (this.#total >= this.#limits.running) return;
      if (!this.#canStart(accountId)) continue;
      const wake = queue.shift()!;
      // Served: to the back of the line, behind the accounts that still wait.
      this.#queued.delete(accountId);
      if (queue.length > 0) this.#queued.set(accountId, queue);
      wake(this.#start(accountId));
    }
  }
}

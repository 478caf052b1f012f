type Wake = (release: () => void) => void;

/** How runs share a process: see `AccountSlots`. */
interface SlotLimits {
  /**
   * Runs of one account at once whatever the others do; unset, none but the process's own bound:
   * an account alone may use every slot (the share is then work-conserving).
   */
  perAccount?: number;
  /** Runs of one account that may wait here for a slot, beyond those running. */
  queuedPerAccount: number;
  /**
   * Runs of every account that may wait here at once: each holds a worker's workflow task while it
   * waits, so the room is sized from the process's slots, and two bursting accounts cannot fill it.
   */
  queued: number;
  /** Runs of every account at once: what bounds the isolates, and their memory, of the process. */
  running: number;
  /**
   * Slots an account already running leaves free for accounts running none: an account alone uses
   * all but these, and a newcomer starts at once instead of after one of its runs (a CPU-bound
   * burst of 2 s runs kept another account's invoke waiting up to 13 s, issue 44).
   */
  keptForNewcomers?: number;
  /**
   * How long a slot is kept for an account refused for want of one (its run asks again a workflow
   * task later) from the accounts that run more; unset, none is kept.
   */
  holdMs?: number;
}

/**
 * How many runs of each account this process runs at once, how many of all accounts, and how many
 * more of each account wait here for a slot: a handover in process, without a round trip. A free
 * slot goes to any account while no other waits, so an account alone may use them all but those
 * kept for newcomers; a slot
 * freed while accounts wait goes to the waiting account that runs the fewest, so under contention
 * the busy accounts converge on equal shares and a newcomer takes the first slot freed after it
 * came (within one run's time), never passed by an account that runs more. Runs beyond an
 * account's waiting room do not wait here, holding a worker slot: their workflow waits on a timer
 * and tries again.
 */
export class AccountSlots {
  readonly #running = new Map<string, number>();
  /** Accounts with runs waiting, the one served longest ago first (ties of the fewest running). */
  readonly #queued = new Map<string, Wake[]>();
  /** Accounts refused for want of a free slot, not yet waiting here, and until when each is owed one. */
  readonly #owed = new Map<string, number>();
  readonly #limits: SlotLimits;
  #total = 0;
  #waiting = 0;

  constructor(limits: SlotLimits) {
    this.#limits = limits;
  }

  /**
   * A release for a slot of the account, once it has one; undefined at once when no slot is free
   * for it and its waiting room is full, or when `signal` aborts while it waits.
   */
  async take(accountId: string, signal?: AbortSignal): Promise<(() => void) | undefined> {
    const now = this.tryTake(accountId);
    if (now) return now;
    const queue = this.#queued.get(accountId) ?? [];
    const full = queue.length >= this.#limits.queuedPerAccount || this.#waiting >= this.#limits.queued;
    if (full || signal?.aborted) return undefined;
    this.#queued.set(accountId, queue);
    this.#owed.delete(accountId);
    this.#waiting += 1;
    return new Promise((resolve) => {
      const abort = () => {
        this.#waiting -= 1;
        queue.splice(queue.indexOf(wake), 1);
        if (queue.length === 0) this.#queued.delete(accountId);
        this.#refused(accountId);
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

  /**
   * A release at once if a slot is free for the account; never waits. Slots freed while runs wait
   * are handed to them as they free (#wakeWaiting), so a free slot here is one no waiting account
   * may take; only the account's own waiting runs are not passed.
   */
  tryTake(accountId: string): (() => void) | undefined {
    if (!this.#queued.has(accountId) && this.#canStart(accountId)) return this.#start(accountId);
    this.#refused(accountId);
    return undefined;
  }

  #canStart(accountId: string): boolean {
    const kept = this.#runningOf(accountId) > 0 ? this.#kept : 0;
    return this.#total + this.#heldFrom(accountId) + kept < this.#limits.running && this.#underItsBound(accountId);
  }

  /** keptForNewcomers, leaving at least one slot to an account alone. */
  get #kept(): number {
    return Math.max(0, Math.min(this.#limits.keptForNewcomers ?? 0, this.#limits.running - 1));
  }

  #underItsBound(accountId: string): boolean {
    return this.#runningOf(accountId) < (this.#limits.perAccount ?? Infinity);
  }

  /**
   * An account refused for want of a free slot, and not waiting here, is owed the next one for a
   * while: a newcomer whose run asks again a workflow task later is not passed meanwhile by the
   * waiting runs of an account that runs more. When the hold ends, the slot goes to those.
   */
  #refused(accountId: string) {
    const holdMs = this.#limits.holdMs ?? 0;
    if (holdMs === 0 || this.#queued.has(accountId) || !this.#underItsBound(accountId)) return;
    this.#owed.set(accountId, Date.now() + holdMs);
    setTimeout(() => this.#wakeWaiting(), holdMs + 1).unref();
  }

  /** The slots kept from `accountId`: one for each account owed one that runs fewer. */
  #heldFrom(accountId: string): number {
    const now = Date.now();
    const running = this.#runningOf(accountId);
    let held = 0;
    for (const [owed, until] of this.#owed) {
      if (until <= now) this.#owed.delete(owed);
      else if (owed !== accountId && this.#runningOf(owed) < running) held += 1;
    }
    return held;
  }

  #runningOf(accountId: string): number {
    return this.#running.get(accountId) ?? 0;
  }

  #start(accountId: string): () => void {
    this.#owed.delete(accountId);
    this.#total += 1;
    this.#running.set(accountId, this.#runningOf(accountId) + 1);
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

  /** Starts waiting runs while slots are free, each to the waiting account that runs the fewest. */
  #wakeWaiting() {
    for (let accountId = this.#nextServed(); accountId !== undefined; accountId = this.#nextServed()) {
      const queue = this.#queued.get(accountId)!;
      const wake = queue.shift()!;
      // Served: to the back of the line, behind the accounts that still wait.
      this.#queued.delete(accountId);
      if (queue.length > 0) this.#queued.set(accountId, queue);
      wake(this.#start(accountId));
    }
  }

  /** The waiting account the next free slot goes to: the fewest running, the longest unserved of those. */
  #nextServed(): string | undefined {
    let served: string | undefined;
    let fewest = Infinity;
    for (const accountId of this.#queued.keys()) {
      const running = this.#runningOf(accountId);
      if (running < fewest && this.#canStart(accountId)) [served, fewest] = [accountId, running];
    }
    return served;
  }
}

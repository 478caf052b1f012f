/**
 * How many runs of each account this process runs at once. Runs over an account's share do not
 * wait here, holding a worker slot: their workflow waits on a timer and tries again, so one
 * account's burst leaves the worker's slots, and its CPU, to the other accounts.
 */
export class AccountSlots {
  readonly #running = new Map<string, number>();
  readonly #perAccount: number;

  constructor(perAccount: number) {
    this.#perAccount = perAccount;
  }

  /** A release for a slot of the account, or undefined when it already runs its share here. */
  tryTake(accountId: string): (() => void) | undefined {
    const running = this.#running.get(accountId) ?? 0;
    if (running >= this.#perAccount) return undefined;
    this.#running.set(accountId, running + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.#running.get(accountId) ?? 1) - 1;
      if (left > 0) this.#running.set(accountId, left);
      else this.#running.delete(accountId);
    };
  }
}

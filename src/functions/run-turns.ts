/**
 * Slots a deferred run's workflow claimed in this process (claimRunTurn) for the local activity
 * that runs its code next, in the same workflow task. A claim that is not used in time (the task
 * moved to another process) is given back, so a lost claim never holds an account's share.
 */
export class RunTurns {
  readonly #held = new Map<string, { release: () => void; expiry: NodeJS.Timeout }>();
  readonly #expiresMs: number;

  constructor(expiresMs: number) {
    this.#expiresMs = expiresMs;
  }

  hold(executionId: string, release: () => void) {
    this.take(executionId)?.();
    const expiry = setTimeout(() => this.take(executionId)?.(), this.#expiresMs).unref();
    this.#held.set(executionId, { release, expiry });
  }

  /** The claimed slot's release, once; undefined when none is held here. */
  take(executionId: string): (() => void) | undefined {
    const held = this.#held.get(executionId);
    if (!held) return undefined;
    this.#held.delete(executionId);
    clearTimeout(held.expiry);
    return held.release;
  }
}

import type { Rate } from '../../ratelimit/rate.ts';

/**
 * Token buckets held by one API process, one per hook path, taken by `hookGate` (hook-gate.routes.ts)
 * in front of the shared buckets of PostgreSQL (hooks.control.ts): a flood to one path is refused
 * there, before it costs a body read, a statement or a log line, so it cannot take the pool's
 * connections or the event loop from other accounts' requests. Each process allows at most the
 * hook's rate; the shared bucket keeps the rate exact across processes. At most `maxKeys` paths
 * are held, the oldest forgotten first (a forgotten path starts full again).
 */
export class LocalBuckets {
  readonly #buckets = new Map<string, { tokens: number; at: number }>();
  readonly #rate: Rate;
  readonly #maxKeys: number;
  readonly #now: () => number;

  constructor(rate: Rate, maxKeys = 10_000, now: () => number = () => performance.now()) {
    this.#rate = rate;
    this.#maxKeys = maxKeys;
    this.#now = now;
  }

  /** Takes a token for `key`: undefined when taken, else the whole seconds until one is there. */
  take(key: string): number | undefined {
    const now = this.#now();
    const perMs = this.#rate.requests / (this.#rate.windowSeconds * 1000);
    const held = this.#buckets.get(key);
    const tokens = held ? Math.min(this.#rate.requests, held.tokens + (now - held.at) * perMs) : this.#rate.requests;
    this.#buckets.delete(key);
    if (this.#buckets.size >= this.#maxKeys) this.#buckets.delete(this.#buckets.keys().next().value!);
    const allowed = tokens >= 1;
    this.#buckets.set(key, { tokens: allowed ? tokens - 1 : tokens, at: now });
    return allowed ? undefined : Math.max(1, Math.ceil((1 - tokens) / perMs / 1000));
  }
}

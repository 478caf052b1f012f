import type { Quote } from './price-source.ts';

interface Entry {
  quote: Promise<Quote>;
  startedAt: number;
  settled: boolean;
}

interface QuoteCacheOptions {
  /** A read that began less than this long ago answers every poll of the same source. */
  reuseMs?: number;
  /** Sources remembered at once; the one read longest ago is forgotten first. */
  maxEntries?: number;
  /** A monotonic clock in milliseconds. */
  now?: () => number;
}

/**
 * The worker's recent reads of price sources. Pollers of the same source share one read a second
 * (and one in flight, however slow): 300 automations watching NEO on CoinGecko cost one request a
 * second instead of one per poll, which spares the worker's CPU and the source's rate limit. A
 * failed read is shared too, so a failing source is not asked again by every poller at once.
 * Staleness is still judged per automation, from the quote's own time.
 */
export class QuoteCache {
  readonly #entries = new Map<string, Entry>();
  readonly #reuseMs: number;
  readonly #maxEntries: number;
  readonly #now: () => number;

  constructor(options: QuoteCacheOptions = {}) {
    this.#reuseMs = options.reuseMs ?? 1_000;
    this.#maxEntries = options.maxEntries ?? 10_000;
    this.#now = options.now ?? (() => performance.now());
  }

  /** The quote of `key`'s read in flight or begun within the reuse window, else `read()`'s. */
  read(key: string, read: () => Promise<Quote>): Promise<Quote> {
    const now = this.#now();
    const entry = this.#entries.get(key);
    if (entry && (!entry.settled || now - entry.startedAt < this.#reuseMs)) return entry.quote;
    // Deleted and set again, so that the Map's order is the order the reads began.
    this.#entries.delete(key);
    if (this.#entries.size >= this.#maxEntries) this.#entries.delete(this.#entries.keys().next().value!);
    const fresh: Entry = { quote: read(), startedAt: now, settled: false };
    const settle = () => {
      fresh.settled = true;
    };
    fresh.quote.then(settle, settle);
    this.#entries.set(key, fresh);
    return fresh.quote;
  }
}

/**
 * The cache key of a source read for `accountId`: a preset's public URL is shared by every
 * account, a custom URL (which may carry the account's API key) is the account's own.
 */
export const quoteKey = (url: string, preset: boolean, accountId: string) =>
  preset ? `preset ${url}` : `account ${accountId} ${url}`;

/** How the client retries a request the API refused for now (429, 503). */
export interface RetryPolicy {
  /** Retries after the first attempt (default 3); 0 turns retrying off. */
  retries?: number;
  /**
   * The longest wait the client accepts (default 30 s): a `Retry-After` asking for more is not
   * waited for, and the refusal is thrown at once with its `retryAfter`.
   */
  maxDelayMs?: number;
  /** The wait before the first retry when the answer says none (default 500 ms), doubled each time. */
  baseDelayMs?: number;
}

/**
 * Statuses the API answers when nothing was done and the same request may be sent again: over the
 * key's rate limit or the account's executions not yet ended (429), a database or Temporal
 * unreachable for a moment (503). Neither keeps anything under an `Idempotency-Key`, so a create
 * or an invoke retried with its key runs once (docs/api.md).
 */
const retriedStatuses = new Set([429, 503]);

/** `Retry-After` in milliseconds: delta-seconds or an HTTP date; undefined when absent or unreadable. */
export function retryAfterMs(header: string | null, now = Date.now()): number | undefined {
  if (header === null || header.trim() === '') return undefined;
  const trimmed = header.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** A `fetch` that sends a request again on 429 and 503, after `Retry-After` when the answer gives one. */
export function retryingFetch(send: typeof fetch, policy: RetryPolicy = {}): typeof fetch {
  const { retries = 3, maxDelayMs = 30_000, baseDelayMs = 500 } = policy;
  return async (input, init) => {
    const request = new Request(input, init);
    for (let attempt = 0; ; attempt += 1) {
      // A body can be read once: every attempt but the last sends a copy.
      const response = await send(attempt < retries ? request.clone() : request);
      if (attempt >= retries || !retriedStatuses.has(response.status)) return response;
      const delay = retryAfterMs(response.headers.get('Retry-After')) ?? baseDelayMs * 2 ** attempt;
      if (delay > maxDelayMs) return response;
      await response.body?.cancel();
      await sleep(delay, request.signal);
    }
  };
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason as Error);
      return;
    }
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', abort);
      resolve();
    }, ms);
    const abort = () => {
      clearTimeout(timer);
      reject(signal.reason as Error);
    };
    signal.addEventListener('abort', abort, { once: true });
  });
}

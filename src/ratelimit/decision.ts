import { AppError } from '../errors.ts';
import type { Rate } from './rate.ts';

/** What one request is told: the verdict and the figures of its `RateLimit-*` headers. */
export interface Decision {
  allowed: boolean;
  limit: number;
  /** Whole requests the key may still make right now. */
  remaining: number;
  /** Seconds until the bucket is full again. */
  resetSeconds: number;
  /** Seconds until the next token; at least 1, since `Retry-After: 0` would invite a busy loop. */
  retryAfterSeconds: number;
}

/**
 * The figures for a bucket of `rate.requests` tokens refilled at `requests / windowSeconds` per
 * second, holding `tokens` after this request. Tokens are fractional because refill is
 * continuous; clients see whole requests (rounded down) and whole seconds (rounded up).
 */
export function decide(rate: Rate, allowed: boolean, tokens: number): Decision {
  const perSecond = rate.requests / rate.windowSeconds;
  const left = Math.min(Math.max(tokens, 0), rate.requests);
  return {
    allowed,
    limit: rate.requests,
    remaining: Math.floor(left),
    resetSeconds: Math.ceil((rate.requests - left) / perSecond),
    retryAfterSeconds: Math.max(1, Math.ceil((1 - left) / perSecond)),
  };
}

/** The headers every authenticated response carries (IETF RateLimit header fields, draft 7). */
export function rateLimitHeaders(decision: Decision): Record<string, string> {
  return {
    'RateLimit-Limit': String(decision.limit),
    'RateLimit-Remaining': String(decision.remaining),
    'RateLimit-Reset': String(decision.resetSeconds),
  };
}

/** `100/10s`, as `--rate` and NEOFLOW_RATE_LIMIT write it. */
export function formatRate(rate: Rate): string {
  return `${rate.requests}/${rate.windowSeconds}s`;
}

/** The 429 for a key over its rate, with the wait in `Retry-After`. */
export function tooManyRequests(rate: Rate, decision: Decision): AppError {
  const wait = decision.retryAfterSeconds;
  return new AppError(
    'rate_limit_exceeded',
    `This API key is over its rate limit of ${formatRate(rate)}; retry in ${wait} s.`,
    { limit: rate.requests, windowSeconds: rate.windowSeconds, retryAfter: wait },
    { 'Retry-After': String(wait) },
  );
}

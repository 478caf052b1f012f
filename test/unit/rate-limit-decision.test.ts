import { describe, expect, it } from 'vitest';
import { decide, formatRate, rateLimitHeaders } from '../../src/ratelimit/decision.ts';
import { parseRate } from '../../src/ratelimit/rate.ts';

const hundredPerTen = { requests: 100, windowSeconds: 10 };

describe('rate limit decision', () => {
  it('counts whole requests left, and seconds until the bucket is full again', () => {
    expect(decide(hundredPerTen, true, 99)).toEqual({
      allowed: true,
      limit: 100,
      remaining: 99,
      resetSeconds: 1,
      retryAfterSeconds: 1,
    });
    expect(decide(hundredPerTen, true, 37.6)).toMatchObject({ remaining: 37, resetSeconds: 7 });
  });

  it('rounds the wait for the next token up, to at least one second', () => {
    const slow = { requests: 3, windowSeconds: 600 };
    expect(decide(slow, false, 0)).toMatchObject({ allowed: false, remaining: 0, retryAfterSeconds: 200 });
    expect(decide(slow, false, 0.999)).toMatchObject({ retryAfterSeconds: 1 });
    expect(decide(hundredPerTen, false, 0.95)).toMatchObject({ retryAfterSeconds: 1, resetSeconds: 10 });
  });

  it('keeps figures in range when floating-point refill overshoots or undershoots', () => {
    expect(decide(hundredPerTen, true, 100.0000001)).toMatchObject({ remaining: 100, resetSeconds: 0 });
    expect(decide(hundredPerTen, false, -1e-12)).toMatchObject({ remaining: 0, resetSeconds: 10 });
  });

  it('renders the three RateLimit headers', () => {
    expect(rateLimitHeaders(decide(hundredPerTen, true, 41.2))).toEqual({
      'RateLimit-Limit': '100',
      'RateLimit-Remaining': '41',
      'RateLimit-Reset': '6',
    });
  });

  it('writes a rate back the way it is parsed', () => {
    expect(formatRate(parseRate(' 5/1s ')!)).toBe('5/1s');
    expect(parseRate('0/10s')).toBeUndefined();
    expect(parseRate('100/10m')).toBeUndefined();
  });
});

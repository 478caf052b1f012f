import type { Middleware } from 'koa';
import type { Caller } from '../auth/keys.service.ts';
import { AppError } from '../errors.ts';
import type { Services } from '../services.ts';
import { formatRate, rateLimitHeaders, type Decision } from './decision.ts';
import type { Rate } from './rate.ts';
import { takeToken } from './token-bucket.ts';

/**
 * Every authenticated request, invocations included, takes one token from its key's bucket.
 * The headers are set before the request goes on, so they stay on its response even when a later
 * middleware or route fails. Unauthenticated requests pass untouched: they have no key to count.
 */
export function rateLimit(services: Pick<Services, 'config' | 'em'>): Middleware {
  return async (ctx, next) => {
    const caller = ctx.state.caller as Caller | undefined;
    if (caller) {
      const rate = caller.rate ?? services.config.rateLimit;
      const decision = await takeToken(services.em(), caller.keyId, rate);
      ctx.set(rateLimitHeaders(decision));
      if (!decision.allowed) throw tooManyRequests(rate, decision);
    }
    await next();
  };
}

function tooManyRequests(rate: Rate, decision: Decision): AppError {
  const wait = decision.retryAfterSeconds;
  return new AppError(
    'rate_limit_exceeded',
    `This API key is over its rate limit of ${formatRate(rate)}; retry in ${wait} s.`,
    { limit: rate.requests, windowSeconds: rate.windowSeconds, retryAfter: wait },
    { 'Retry-After': String(wait) },
  );
}

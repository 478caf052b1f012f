import type { Middleware } from 'koa';
import { AppError } from '../errors.ts';
import { admit, type Caller } from '../auth/admission.ts';
import { grants, type Scope } from '../auth/scopes.ts';
import { rateLimitHeaders, tooManyRequests } from '../ratelimit/decision.ts';
import { rateLimited } from '../metrics/metrics.ts';
import type { Services } from '../services.ts';

/** Paths that need a key; anything below them is authenticated before it is routed. */
const protectedPrefixes = ['/v1/functions', '/v1/secrets', '/v1/automations', '/v1/account'];

const unauthorized = () =>
  new AppError('unauthorized', 'A valid API key is required (Authorization: Bearer <key> or X-API-Key: <key>).');

/** The key a request presents through either header; two different keys count as none. */
export function presentedKey(authorization: string, apiKeyHeader: string): string | undefined {
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(authorization)?.[1];
  const direct = apiKeyHeader.trim() || undefined;
  if (bearer && direct && bearer !== direct) return undefined;
  return bearer ?? direct;
}

export function isProtected(path: string): boolean {
  return protectedPrefixes.some((prefix) => path === prefix || path.startsWith(`${prefix}/`));
}

/**
 * Authenticates every request to a protected area, matched route or not, so an unauthenticated
 * client learns nothing about which paths exist: missing, malformed, unknown and revoked keys get
 * one identical 401. Every authenticated request, invocations included, takes one token from its
 * key's bucket in the same statement. The `RateLimit-*` headers are set before the request goes
 * on, so they stay on its response even when a later middleware or route fails.
 */
export function admitCallers(services: Pick<Services, 'config' | 'em'>): Middleware {
  return async (ctx, next) => {
    if (!isProtected(ctx.path)) {
      await next();
      return;
    }
    const key = presentedKey(ctx.get('Authorization'), ctx.get('X-API-Key'));
    const admission = key === undefined ? null : await admit(services.em(), key, services.config.rateLimit);
    if (!admission) throw unauthorized();
    ctx.state.caller = admission.caller;
    ctx.set(rateLimitHeaders(admission.decision));
    if (!admission.decision.allowed) {
      rateLimited.inc();
      throw tooManyRequests(admission.rate, admission.decision);
    }
    await next();
  };
}

/** Route guard: the authenticated key must hold `scope` (or `*`). */
export function requireScope(scope: Scope): Middleware {
  return async (ctx, next) => {
    if (!grants(callerOf(ctx.state).scopes, scope)) {
      throw new AppError('forbidden', `This API key lacks the "${scope}" scope.`, { requiredScope: scope });
    }
    await next();
  };
}

export function callerOf(state: Record<string, unknown>): Caller {
  return state.caller as Caller;
}

import type { Middleware } from 'koa';
import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError } from '../errors.ts';
import { authenticate, type Caller } from '../auth/keys.service.ts';
import { grants, type Scope } from '../auth/scopes.ts';

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

function isProtected(path: string): boolean {
  return protectedPrefixes.some((prefix) => path === prefix || path.startsWith(`${prefix}/`));
}

/**
 * Authenticates every request to a protected area, matched route or not, so an unauthenticated
 * client learns nothing about which paths exist. Missing, malformed, unknown and revoked keys
 * get one identical 401.
 */
export function authenticateAreas(em: () => EntityManager): Middleware {
  return async (ctx, next) => {
    if (!isProtected(ctx.path)) {
      await next();
      return;
    }
    const key = presentedKey(ctx.get('Authorization'), ctx.get('X-API-Key'));
    const caller = key === undefined ? null : await authenticate(em(), key);
    if (!caller) throw unauthorized();
    ctx.state.caller = caller;
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

import type { Middleware } from 'koa';
import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError } from '../errors.ts';
import { authenticate, type Caller } from '../auth/keys.service.ts';
import { grants, type Scope } from '../auth/scopes.ts';

const unauthorized = () => new AppError('unauthorized', 'A valid API key is required (Authorization: Bearer <key> or X-API-Key: <key>).');

/** The key a request presents through either header; two different keys count as none. */
export function presentedKey(authorization: string, apiKeyHeader: string): string | undefined {
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(authorization)?.[1];
  const direct = apiKeyHeader.trim() || undefined;
  if (bearer && direct && bearer !== direct) return undefined;
  return bearer ?? direct;
}

/**
 * Authenticates the request and, when `scope` is given, checks the key holds it. Missing,
 * malformed, unknown and revoked keys get one identical 401.
 */
export function requireKey(em: () => EntityManager, scope?: Scope): Middleware {
  return async (ctx, next) => {
    const key = presentedKey(ctx.get('Authorization'), ctx.get('X-API-Key'));
    const caller = key === undefined ? null : await authenticate(em(), key);
    if (!caller) throw unauthorized();
    if (scope && !grants(caller.scopes, scope)) {
      throw new AppError('forbidden', `This API key lacks the "${scope}" scope.`, { requiredScope: scope });
    }
    ctx.state.caller = caller;
    await next();
  };
}

export function callerOf(state: Record<string, unknown>): Caller {
  return state.caller as Caller;
}

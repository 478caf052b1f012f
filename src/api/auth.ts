import type { Context, Middleware } from 'koa';
import { AppError } from '../errors.ts';
import { admit, admitSession, type Caller } from '../auth/admission.ts';
import { consoleHeader, presentedSession, sessionIdleSeconds } from '../auth/console-session.ts';
import type { OwnedRead, OwnedTable } from '../auth/api-key.sql.ts';
import { grants, type Scope } from '../auth/scopes.ts';
import { rateLimitHeaders, tooManyRequests } from '../ratelimit/decision.ts';
import { rateLimited } from '../metrics/metrics.ts';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Config } from '../config.ts';
import { recordRefused } from '../auth/refused-key.ts';
import { requestOrigin } from '../audit/actor.ts';

/** Paths that need a key; anything below them is authenticated before it is routed. */
const protectedPrefixes = [
  '/v1/functions',
  '/v1/secrets',
  '/v1/automations',
  '/v1/account',
  '/v1/signers',
  '/v1/keys',
  '/v1/console',
  '/v1/audit-events',
];

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
 * A route whose path names a row of the caller's account that its handler reads first: the row is
 * read in the admission's statement instead (`readWithKey`), one round trip less on a hot path.
 * `path` captures the id; a request it does not match is admitted alone and its route reads as usual.
 */
export interface ReadWithKey {
  method: string;
  path: RegExp;
  table: OwnedTable;
}

interface ReadAlongside extends OwnedRead {
  row: Record<string, unknown> | null;
}

/**
 * Authenticates every request to a protected area, matched route or not, so an unauthenticated
 * client learns nothing about which paths exist: missing, malformed, unknown and revoked keys get
 * one identical 401. Every authenticated request, invocations included, takes one token from its
 * key's bucket in the same statement. The `RateLimit-*` headers are set before the request goes
 * on, so they stay on its response even when a later middleware or route fails. A request with no
 * key may present a console session's cookie instead, which stands for the key it was opened with
 * (its scopes, its bucket; docs/api.md, "Console sessions").
 */
export function admitCallers(
  services: { config: Pick<Config, 'rateLimit'>; em: () => EntityManager },
  readsWithKey: readonly ReadWithKey[] = [],
): Middleware {
  const alongsideOf = (method: string, path: string): OwnedRead | undefined => {
    for (const read of readsWithKey) {
      const id = read.method === method ? read.path.exec(path)?.[1] : undefined;
      if (id !== undefined) return { table: read.table, id };
    }
    return undefined;
  };
  return async (ctx, next) => {
    if (!isProtected(ctx.path)) {
      await next();
      return;
    }
    const key = presentedKey(ctx.get('Authorization'), ctx.get('X-API-Key'));
    const alongside = alongsideOf(ctx.method, ctx.path);
    const session = key === undefined ? presentedSession(ctx.get('Cookie')) : undefined;
    const admission =
      key !== undefined
        ? await admit(services.em(), key, services.config.rateLimit, alongside)
        : session !== undefined
          ? await admitSession(services.em(), session, sessionIdleSeconds, services.config.rateLimit)
          : null;
    if (!admission) {
      if (key !== undefined) await recordRefused(services.em(), key, requestOrigin(ctx));
      throw unauthorized();
    }
    ctx.state.caller = admission.caller;
    if (alongside) ctx.state.readAlongside = { ...alongside, row: admission.owned ?? null } satisfies ReadAlongside;
    ctx.set(rateLimitHeaders(admission.decision));
    if (!admission.decision.allowed) {
      rateLimited.inc();
      throw tooManyRequests(admission.rate, admission.decision);
    }
    if (admission.caller.sessionId !== undefined) refuseCrossSite(ctx);
    await next();
  };
}

const safeMethods = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * A browser sends the session cookie with any request to this origin, a forged one from another
 * site's page too (but for SameSite=Strict, which old browsers ignore): a change made with a
 * session must carry the console's own header, which no cross-site form can send, and come from
 * this origin when the browser says where it comes from.
 */
function refuseCrossSite(ctx: Context) {
  if (safeMethods.has(ctx.method)) return;
  const site = ctx.get('Sec-Fetch-Site');
  const origin = ctx.get('Origin');
  const sameOrigin = origin === '' || hostOf(origin) === ctx.host;
  if (ctx.get(consoleHeader) !== '1' || !sameOrigin || (site !== '' && site !== 'same-origin')) {
    throw new AppError(
      'forbidden',
      `A change made with a console session must come from the console: this origin, with the header ${consoleHeader}: 1.`,
    );
  }
}

function hostOf(origin: string): string | undefined {
  try {
    return new URL(origin).host;
  } catch {
    return undefined;
  }
}

/** Route guard: the authenticated key must hold `scope` (or `*`). */
export function requireScope(scope: Scope): Middleware {
  return async (ctx, next) => {
    assertScope(ctx.state, scope);
    await next();
  };
}

/** 403 unless the caller's key holds `scope`: for a scope a route needs for some resources only. */
export function assertScope(state: Record<string, unknown>, scope: Scope) {
  if (!grants(callerOf(state).scopes, scope)) {
    throw new AppError('forbidden', `This API key lacks the "${scope}" scope.`, { requiredScope: scope });
  }
}

export function callerOf(state: Record<string, unknown>): Caller {
  return state.caller as Caller;
}

/**
 * The row of `table` with this id as the admission read it (null: the caller's account has none),
 * or undefined when it was not read (another path, or an id the route decoded otherwise).
 */
export function readWithKey(
  state: Record<string, unknown>,
  table: OwnedTable,
  id: string,
): Record<string, unknown> | null | undefined {
  const read = state.readAlongside as ReadAlongside | undefined;
  return read?.table === table && read.id === id ? read.row : undefined;
}

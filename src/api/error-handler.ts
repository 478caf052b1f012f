import type { Context, Middleware } from 'koa';
import { AppError } from '../errors.ts';
import type { Logger } from '../log.ts';
import { areaOf, errorBody, type Area } from './areas.ts';
import { isDependencyDown } from './dependency-down.ts';

/**
 * The one place errors become HTTP: AppErrors keep their code, an unreachable PostgreSQL or Temporal
 * is a 503 to retry, anything else is logged with the request id and answered as a bare
 * `internal_error` (no stack or SQL leaves the server).
 */
export function errorHandler(log: Logger): Middleware {
  return async (ctx, next) => {
    try {
      await next();
    } catch (thrown) {
      const error = toAppError(thrown, log, ctx.state.requestId as string);
      respond(ctx, areaOf(ctx.path), error);
      return;
    }
    // No route answered: the contract gives unknown paths (and wrong methods) the general shape.
    if (ctx.body === undefined || ctx.body === null)
      respond(ctx, 'general', unmatched(ctx.status, ctx.response.get('Allow')));
  };
}

function respond(ctx: Context, area: Area, error: AppError) {
  ctx.status = error.status;
  ctx.set(error.headers);
  ctx.body = errorBody(area, error);
}

function unmatched(status: number, allow: string): AppError {
  if (status === 405)
    return new AppError('method_not_allowed', 'This method is not allowed on this path.', {}, { Allow: allow });
  return new AppError('not_found', 'No such path. Paths start with /v1; see docs/api.md.');
}

function toAppError(thrown: unknown, log: Logger, requestId: string): AppError {
  if (thrown instanceof AppError) return thrown;
  // Koa and the router throw http-errors for requests they cannot parse (a malformed URL, say).
  if (isClientHttpError(thrown)) return new AppError('invalid_request', 'The request could not be understood.');
  if (isDependencyDown(thrown)) return unavailable(thrown, log, requestId);
  return internal(thrown, log, requestId);
}

function isClientHttpError(thrown: unknown): boolean {
  const status = (thrown as { status?: unknown } | null)?.status;
  return typeof status === 'number' && status >= 400 && status < 500;
}

/** Seconds a client waits before retrying while PostgreSQL or Temporal is unreachable. */
const retryAfterSeconds = 5;

function unavailable(error: unknown, log: Logger, requestId: string): AppError {
  log.warn('a dependency is unavailable', { requestId, error: error instanceof Error ? error.message : String(error) });
  return new AppError(
    'service_unavailable',
    'A service Neoflow depends on is unavailable right now; retry shortly.',
    {},
    { 'Retry-After': String(retryAfterSeconds) },
  );
}

function internal(error: unknown, log: Logger, requestId: string): AppError {
  log.error('request failed', {
    requestId,
    error: error instanceof Error ? (error.stack ?? error.message) : String(error),
  });
  return new AppError(
    'internal_error',
    'Something went wrong on our side. Quote the X-Request-Id header when reporting it.',
  );
}

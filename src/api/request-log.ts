import type { Middleware } from 'koa';
import type { Logger } from '../log.ts';

/**
 * One line per request; paths only, as `loggablePath` leaves them (less any capability a path may
 * hold), never bodies or headers (they may hold keys or secrets).
 */
export function requestLog(log: Logger, loggablePath: (path: string) => string): Middleware {
  return async (ctx, next) => {
    const started = performance.now();
    try {
      await next();
    } finally {
      log.info('request', {
        method: ctx.method,
        path: loggablePath(ctx.path),
        status: ctx.status,
        ms: Math.round(performance.now() - started),
        requestId: ctx.state.requestId,
      });
    }
  };
}

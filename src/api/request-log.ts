import type { Middleware } from 'koa';
import type { Logger } from '../log.ts';
import { loggablePath } from '../codec/codec.auth.ts';

/**
 * One line per request; paths only (less the codec capability they may hold), never bodies or
 * headers (they may hold keys or secrets).
 */
export function requestLog(log: Logger): Middleware {
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

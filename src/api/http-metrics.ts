import type { Middleware } from 'koa';
import { operatorBearer } from '../auth/operator-token.ts';
import { AppError } from '../errors.ts';
import { collectProcessMetrics, httpDuration, httpRequests, registry } from '../metrics/metrics.ts';
import { isProtected } from './auth.ts';
import { apiRouter } from './router.ts';

/**
 * Counts and times every answer, by the route's template (`/v1/functions/:id/invoke`), so that ids
 * never become labels. A request answered before routing (a 401 or 429 of a protected area) counts
 * under its area (`/v1/functions/*`); any other path no route matched as `unmatched`. Mounted
 * outside the error handler: the status is the one the client got.
 */
export const httpMetrics: Middleware = async (ctx, next) => {
  const started = performance.now();
  try {
    await next();
  } finally {
    const labels = {
      method: ctx.method,
      route: routeLabel(ctx.path, (ctx as { _matchedRoute?: unknown })._matchedRoute),
    };
    httpRequests.inc({ ...labels, status: String(ctx.status) });
    httpDuration.observe(labels, (performance.now() - started) / 1000);
  }
};

/**
 * Counts and times answers given before Koa (a hook over its rate: src/app/server.ts) as
 * `httpMetrics` does its own, under `route`; call it with the time the request came in.
 */
export function answerCounter(method: string, route: string, status: number) {
  const requests = httpRequests.labels({ method, route, status: String(status) });
  const duration = httpDuration.labels({ method, route });
  return (startedMs: number) => {
    requests.inc();
    duration.observe((performance.now() - startedMs) / 1000);
  };
}

function routeLabel(path: string, matched: unknown): string {
  if (typeof matched === 'string') return matched;
  return isProtected(path) ? `/v1/${path.split('/')[2]}/*` : 'unmatched';
}

/** `GET /metrics` (Prometheus text), for the metrics token only (see `metricsToken`). */
export function metricsRoutes(token: string) {
  collectProcessMetrics();
  const presentsToken = operatorBearer(token);
  const router = apiRouter('/metrics');
  router.get('/', async (ctx) => {
    if (!presentsToken(ctx.get('Authorization'))) {
      throw new AppError(
        'unauthorized',
        'The metrics token is required: Authorization: Bearer <NEOFLOW_METRICS_TOKEN> (the operator token where it is not set).',
      );
    }
    ctx.type = registry.contentType;
    ctx.body = await registry.metrics();
  });
  return router;
}

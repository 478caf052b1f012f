import Koa from 'koa';
import { Router } from '@koa/router';
import { RequestContext } from '@mikro-orm/postgresql';
import type { Services } from '../services.ts';
import { accountRoutes } from '../auth/account.routes.ts';
import { healthRoutes } from '../health/health.routes.ts';
import { errorHandler } from './error-handler.ts';
import { jsonBody } from './json-body.ts';
import { requestId } from './request-id.ts';
import { requestLog } from './request-log.ts';

/** Each area contributes one router; their routes together decide 404 versus 405. */
export function createApp(services: Services): Koa {
  const router = new Router();
  for (const area of [healthRoutes(services), accountRoutes(services)]) router.use(area.routes());

  const app = new Koa();
  app.proxy = false;
  app.use(requestId);
  app.use(requestLog(services.log));
  app.use(errorHandler(services.log));
  app.use((_ctx, next) => RequestContext.create(services.orm.em, next));
  app.use(jsonBody);
  app.use(router.routes());
  app.use(router.allowedMethods());
  return app;
}

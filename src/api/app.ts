import Koa from 'koa';
import type { Router } from '@koa/router';
import { RequestContext } from '@mikro-orm/postgresql';
import type { Services } from '../services.ts';
import { accountRoutes } from '../auth/account.routes.ts';
import { automationsRoutes } from '../automations/automations.routes.ts';
import { executionsRoutes } from '../functions/executions.routes.ts';
import { functionsRoutes } from '../functions/functions.routes.ts';
import { healthRoutes } from '../health/health.routes.ts';
import { rateLimit } from '../ratelimit/rate-limit.middleware.ts';
import { secretsRoutes } from '../secrets/secrets.routes.ts';
import { codecRoutes } from '../temporal/codec.routes.ts';
import { authenticateAreas } from './auth.ts';
import { errorHandler } from './error-handler.ts';
import { jsonBody } from './json-body.ts';
import { requestId } from './request-id.ts';
import { requestLog } from './request-log.ts';
import { apiRouter } from './router.ts';
import { refuseUnstorableUrl } from './storable-text.ts';

/**
 * The API: one router per area, mounted together so that their routes decide 404 versus 405.
 * `extraAreas` lets tests mount probe routes behind the same middleware.
 */
export function createApp(services: Services, extraAreas: Router[] = []): Koa {
  const router = apiRouter();
  const areas = [
    healthRoutes(services),
    accountRoutes(services),
    secretsRoutes(services),
    functionsRoutes(services),
    executionsRoutes(services),
    automationsRoutes(services),
    codecRoutes(services),
    ...extraAreas,
  ];
  for (const area of areas) router.use(area.routes());

  const app = new Koa();
  app.use(requestId);
  app.use(requestLog(services.log));
  app.use(errorHandler(services.log));
  app.use((_ctx, next) => RequestContext.create(services.orm.em, next));
  app.use(authenticateAreas(services.em));
  app.use(rateLimit(services));
  app.use(refuseUnstorableUrl);
  app.use(jsonBody);
  app.use(router.routes());
  app.use(router.allowedMethods());
  return app;
}

import Koa, { type Middleware } from 'koa';
import type { Router } from '@koa/router';
import { RequestContext } from '@mikro-orm/postgresql';
import type { Resources } from '../resources.ts';
import { accountRoutes } from '../account/account.routes.ts';
import { automationsRoutes } from '../automations/automations.routes.ts';
import { hooksRoutes, loggableHookPath } from '../automations/hooks/hooks.routes.ts';
import { stopAutomationsOfFunction } from '../automations/automations.service.ts';
import type { TriggerControl } from '../automations/triggers.control.ts';
import type { LocalRuns } from '../functions/local-runs.ts';
import { executionsRoutes, invokeReadsFunction } from '../functions/executions.routes.ts';
import { functionsRoutes } from '../functions/functions.routes.ts';
import { versionsRoutes } from '../functions/versions.routes.ts';
import { storageRoutes } from '../functions/storage/storage.routes.ts';
import { healthRoutes, livenessRoutes } from '../health/health.routes.ts';
import { secretsRoutes } from '../secrets/secrets.routes.ts';
import { signersRoutes } from '../signers/signers.routes.ts';
import { keysRoutes } from '../keys/keys.routes.ts';
import { auditRoutes } from '../audit/audit.routes.ts';
import { codecRoutes } from '../codec/codec.routes.ts';
import { receiptKeysRoutes } from '../receipts/receipt-keys.routes.ts';
import { loggablePath } from '../codec/codec.auth.ts';
import { admitCallers } from '../api/auth.ts';
import { errorHandler } from '../api/error-handler.ts';
import { jsonBody } from '../api/json-body.ts';
import { requestId } from '../api/request-id.ts';
import { requestLog } from '../api/request-log.ts';
import { docsPage } from '../api/docs-page.ts';
import { consolePage } from '../api/console-page.ts';
import { consoleRoutes } from '../console/console.routes.ts';
import { httpMetrics, metricsRoutes } from '../api/http-metrics.ts';
import { metricsToken } from '../auth/operator-token.ts';
import { openApiRoutes } from '../api/openapi.routes.ts';
import { checkDeclaredAnswers } from '../api/route-kit.ts';
import { apiRouter } from '../api/router.ts';
import { refuseUnstorableUrl } from '../api/storable-text.ts';

/**
 * What the API's areas are built over: the process's resources and its process state, each made
 * once (src/app/main.ts): its trigger control, and the runs its own worker runs (none where the
 * API hosts no worker).
 */
export type ApiResources = Resources & { triggerControl: TriggerControl; localRuns: LocalRuns | undefined };

/**
 * The API, and the one place that lists every area: one router per area, mounted together so that
 * their routes decide 404 versus 405. What one area does for another is wired here (a deleted
 * function stops its automations), so areas never import each other's routes or services.
 * `extraAreas` lets tests mount probe routes behind the same middleware; `checkAnswers`, a check of
 * every answer against the document of these areas, outermost (tests: test/support/answer-check.ts).
 */
export function createApp(
  resources: ApiResources,
  extraAreas: Router[] = [],
  checkAnswers?: (areas: Router[]) => Middleware,
): Koa {
  const areas = apiAreas(resources, extraAreas);
  const router = apiRouter();
  for (const area of areas) router.use(area.routes());

  const app = new Koa();
  if (checkAnswers) app.use(checkAnswers(areas));
  app.use(requestId);
  app.use(httpMetrics);
  app.use(requestLog(resources.log, (path) => loggableHookPath(loggablePath(path))));
  app.use(errorHandler(resources.log));
  app.use((_ctx, next) => RequestContext.create(resources.orm.em, next));
  app.use(admitCallers(resources, [invokeReadsFunction]));
  app.use(refuseUnstorableUrl);
  app.use(jsonBody);
  // Tests run every answer past its route's declaration.
  if (resources.config.env === 'test') app.use(checkDeclaredAnswers);
  app.use(router.routes());
  app.use(router.allowedMethods());
  return app;
}

/**
 * One router per area, in the order they match. Building them opens nothing: the OpenAPI document
 * is built from them without a running stack (src/app/openapi-document.ts).
 */
export function apiAreas(resources: ApiResources, extraAreas: Router[] = []): Router[] {
  const { triggerControl } = resources;
  const areas: Router[] = [
    healthRoutes(resources),
    livenessRoutes(),
    accountRoutes(resources),
    keysRoutes(resources),
    auditRoutes(resources),
    secretsRoutes(resources),
    signersRoutes(resources),
    functionsRoutes(resources, {
      functionDeleted: (functionId) => stopAutomationsOfFunction(resources.em(), triggerControl, functionId),
    }),
    executionsRoutes(resources),
    versionsRoutes(resources),
    storageRoutes(resources),
    automationsRoutes(resources, triggerControl),
    hooksRoutes(resources, triggerControl),
    codecRoutes(resources),
    consoleRoutes(resources),
    receiptKeysRoutes(resources.config),
    openApiRoutes((): Router[] => areas),
    docsPage(),
    consolePage(),
    metricsRoutes(metricsToken(resources.config.secrets)),
    ...extraAreas,
  ];
  return areas;
}

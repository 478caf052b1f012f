import type { Router } from '@koa/router';
import type { Context } from 'koa';
import { callerOf, requireScope } from '../api/auth.ts';
import { paginationOf } from '../api/pagination.ts';
import { parseBody, parseQuery } from '../api/validate.ts';
import { apiRouter } from '../api/router.ts';
import type { Services } from '../services.ts';
import { automationView, runView } from './automation.view.ts';
import {
  createAutomationBody,
  listAutomationsQuery,
  listRunsQuery,
  updateAutomationBody,
} from './automations.schemas.ts';
import {
  createAutomation,
  deleteAutomation,
  getAutomation,
  listAutomations,
  updateAutomation,
} from './automations.service.ts';
import { fireManually, retryRun } from './manual-runs.ts';
import { listRuns } from './runs.ts';
import { executionStats } from './stats.ts';
import { triggerControlOf } from './trigger-control.ts';
import { nextFireTime } from './triggers.ts';
import type { Automation } from './automation.entity.ts';

/** The automations area: bare responses and upper-case error codes. */
export function automationsRoutes(services: Services): Router {
  const { em } = services;
  const control = triggerControlOf(services);
  const account = (ctx: Context) => callerOf(ctx.state).accountId;
  const params = (ctx: Context) => ctx.params as Record<string, string>;
  const withStats = async (automation: Automation) =>
    automationView(automation, await executionStats(em(), automation.id, await nextFireTime(control, automation)));
  return apiRouter('/v1/automations')
    .get('/', requireScope('automations:read'), async (ctx) => {
      const query = parseQuery(listAutomationsQuery, ctx.query);
      const [automations, total] = await listAutomations(em(), account(ctx), query);
      ctx.body = {
        automations: automations.map((a) => automationView(a)),
        pagination: paginationOf(query, automations.length, total),
      };
    })
    .post('/', requireScope('automations:write'), async (ctx) => {
      const input = parseBody(createAutomationBody, ctx.request.body);
      ctx.status = 201;
      ctx.body = automationView(await createAutomation(em(), control, account(ctx), input));
    })
    .get('/:id', requireScope('automations:read'), async (ctx) => {
      ctx.body = await withStats(await getAutomation(em(), account(ctx), params(ctx).id!));
    })
    .patch('/:id', requireScope('automations:write'), async (ctx) => {
      const input = parseBody(updateAutomationBody, ctx.request.body);
      const updated = await updateAutomation(em(), control, account(ctx), params(ctx).id!, input);
      const stats = await executionStats(em(), updated.automation.id, updated.nextFireTime);
      ctx.body = automationView(updated.automation, stats);
    })
    .delete('/:id', requireScope('automations:write'), async (ctx) => {
      await deleteAutomation(em(), control, account(ctx), params(ctx).id!);
      ctx.body = { success: true, message: 'Automation deleted.' };
    })
    .post('/:id/trigger', requireScope('automations:write'), async (ctx) => {
      const automation = await getAutomation(em(), account(ctx), params(ctx).id!);
      ctx.status = 202;
      ctx.body = { run: await fireManually(em(), control, automation) };
    })
    .get('/:id/runs', requireScope('automations:read'), async (ctx) => {
      const query = parseQuery(listRunsQuery, ctx.query);
      const automation = await getAutomation(em(), account(ctx), params(ctx).id!);
      const [runs, total] = await listRuns(em(), automation.id, query);
      ctx.body = { runs: runs.map(runView), pagination: paginationOf(query, runs.length, total) };
    })
    .post('/:id/runs/:runId/retry', requireScope('automations:write'), async (ctx) => {
      const automation = await getAutomation(em(), account(ctx), params(ctx).id!);
      ctx.status = 202;
      ctx.body = { run: await retryRun(em(), control, automation, params(ctx).runId!) };
    });
}

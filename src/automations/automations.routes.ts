import type { Router } from '@koa/router';
import { z } from 'zod';
import { paginationOf } from '../wire/pagination.ts';
import { deletedMessage, paginationSchema } from '../wire/response-schemas.ts';
import { areaRouter, bare, route } from '../api/route-kit.ts';
import type { Services } from '../services.ts';
import {
  automationSchema,
  automationView,
  runDetails,
  runDetailsSchema,
  runSchema,
  runView,
  startedRunSchema,
} from './automation.view.ts';
import {
  createAutomationBody,
  listAutomationsQuery,
  listRunsQuery,
  testAutomationBody,
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
import { testAutomation } from './automation-test.ts';
import { dryRunSlots } from './action-dry-run.ts';
import { testAnswerSchema } from './automation-test.view.ts';
import { getRun, listRuns } from './runs.ts';
import { executionStats } from './stats.ts';
import { assertAutomationRoom, assertTriggerInterval } from './quotas.ts';
import { triggerControlOf } from './trigger-control.ts';
import { nextFireOf } from './next-fire.ts';
import type { Automation } from './automation.entity.ts';
import { idempotent } from '../api/idempotency.ts';
import { gasView } from './budget.view.ts';
import { createReplayBody, replaySchema } from './replays.schemas.ts';
import { createReplay, getReplay } from './replays.service.ts';

/** The automations area: bare responses and upper-case error codes. */
export function automationsRoutes(services: Services): Router {
  // Creates and invokes are safe to repeat under an Idempotency-Key.
  const keyed = idempotent(services);
  const { em } = services;
  const control = triggerControlOf(services);
  const { quotas } = services.config;
  const slots = dryRunSlots();
  const dryRunDeps = () => ({
    slots,
    egress: control.egress,
    em: em(),
    neo: services.neo,
    masterKeys: services.masterKeys,
    sandbox: {
      memoryLimitMb: services.config.worker.sandboxMemoryMb,
      serviceCalls: services.config.worker.sandboxServiceCalls,
    },
  });
  // Read from the row alone: a read answers while Temporal is down.
  const withStats = async (automation: Automation) =>
    automationView(automation, await executionStats(em(), automation.id, nextFireOf(automation)));
  return areaRouter('/v1/automations', [
    route({
      method: 'get',
      path: '/',
      scope: 'automations:read',
      query: listAutomationsQuery,
      responses: { 200: z.strictObject({ automations: z.array(automationSchema), pagination: paginationSchema }) },
      handle: async ({ accountId, query }) => {
        const [automations, total] = await listAutomations(em(), accountId, query);
        return bare({
          automations: automations.map((automation) => automationView(automation)),
          pagination: paginationOf(query, automations.length, total),
        });
      },
    }),
    route({
      method: 'post',
      path: '/',
      scope: 'automations:write',
      idempotency: keyed,
      body: createAutomationBody,
      responses: { 201: automationSchema },
      handle: async ({ accountId, body }) => {
        assertTriggerInterval(quotas, body.trigger);
        await assertAutomationRoom(em(), quotas, accountId);
        return bare(automationView(await createAutomation(em(), control, accountId, body, services.masterKeys)), 201);
      },
    }),
    route({
      method: 'get',
      path: '/:id',
      scope: 'automations:read',
      responses: { 200: automationSchema },
      handle: async ({ accountId, params }) => {
        const automation = await getAutomation(em(), accountId, params.id);
        const gas = await gasView(em(), automation);
        return bare({ ...(await withStats(automation)), ...(gas ? { gas } : {}) });
      },
    }),
    route({
      method: 'patch',
      path: '/:id',
      scope: 'automations:write',
      body: updateAutomationBody,
      responses: { 200: automationSchema.extend({ replay: replaySchema.optional() }) },
      handle: async ({ accountId, params, body }) => {
        if (body.trigger) assertTriggerInterval(quotas, body.trigger);
        const updated = await updateAutomation(em(), control, accountId, params.id, body, services.masterKeys);
        const stats = await executionStats(em(), updated.automation.id, updated.nextFireTime);
        const gas = await gasView(em(), updated.automation);
        const { replay } = updated;
        return bare({
          ...automationView(updated.automation, stats),
          ...(gas ? { gas } : {}),
          ...(replay ? { replay } : {}),
        });
      },
    }),
    route({
      method: 'delete',
      path: '/:id',
      scope: 'automations:write',
      responses: { 200: deletedMessage },
      handle: async ({ accountId, params }) => {
        await deleteAutomation(em(), control, accountId, params.id);
        return bare({ success: true, message: 'Automation deleted.' });
      },
    }),
    route({
      method: 'post',
      path: '/:id/trigger',
      scope: 'automations:write',
      idempotency: keyed,
      responses: { 202: startedRunSchema },
      handle: async ({ accountId, params }) => {
        const automation = await getAutomation(em(), accountId, params.id);
        return bare({ run: await fireManually(em(), control, automation) }, 202);
      },
    }),
    route({
      method: 'post',
      path: '/:id/test',
      scope: 'automations:write',
      body: testAutomationBody,
      responses: { 200: testAnswerSchema },
      handle: async ({ accountId, params, body }) => {
        const automation = await getAutomation(em(), accountId, params.id);
        return bare(await testAutomation(dryRunDeps(), automation, body));
      },
    }),
    route({
      method: 'get',
      path: '/:id/runs',
      scope: 'automations:read',
      query: listRunsQuery,
      responses: { 200: z.strictObject({ runs: z.array(runSchema), pagination: paginationSchema }) },
      handle: async ({ accountId, params, query }) => {
        const automation = await getAutomation(em(), accountId, params.id);
        const [runs, total] = await listRuns(em(), automation.id, query);
        return bare({ runs: runs.map(runView), pagination: paginationOf(query, runs.length, total) });
      },
    }),
    route({
      method: 'get',
      path: '/:id/runs/:runId',
      scope: 'automations:read',
      responses: { 200: runDetailsSchema },
      handle: async ({ accountId, params }) => {
        const automation = await getAutomation(em(), accountId, params.id);
        const { run, notifications } = await getRun(em(), automation.id, params.runId);
        return bare(runDetails(run, notifications));
      },
    }),
    route({
      method: 'post',
      path: '/:id/runs/:runId/retry',
      scope: 'automations:write',
      idempotency: keyed,
      responses: { 202: startedRunSchema },
      handle: async ({ accountId, params }) => {
        const automation = await getAutomation(em(), accountId, params.id);
        return bare({ run: await retryRun(em(), control, automation, params.runId) }, 202);
      },
    }),
    route({
      method: 'post',
      path: '/:id/replays',
      scope: 'automations:write',
      idempotency: keyed,
      body: createReplayBody,
      responses: { 202: replaySchema },
      handle: async ({ accountId, params, body }) => {
        const automation = await getAutomation(em(), accountId, params.id);
        return bare(await createReplay(em(), control, automation, body), 202);
      },
    }),
    route({
      method: 'get',
      path: '/:id/replays/:replayId',
      scope: 'automations:read',
      responses: { 200: replaySchema },
      handle: async ({ accountId, params }) => {
        const automation = await getAutomation(em(), accountId, params.id);
        return bare(await getReplay(em(), automation.id, params.replayId));
      },
    }),
  ]);
}

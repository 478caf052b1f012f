import type { Router } from '@koa/router';
import type { Context } from 'koa';
import { callerOf, requireScope } from '../api/auth.ts';
import { pageEnvelope } from '../api/pagination.ts';
import { parseBody, parseQuery } from '../api/validate.ts';
import { apiRouter } from '../api/router.ts';
import type { Services } from '../services.ts';
import { stopAutomationsOfFunction } from '../automations/automations.service.ts';
import { triggerControlOf } from '../automations/trigger-control.ts';
import { functionListItem, functionView } from './function.view.ts';
import {
  createFunctionBody,
  environment,
  functionSecretsBody,
  getFunctionQuery,
  listFunctionsQuery,
  updateFunctionBody,
} from './functions.schemas.ts';
import { createFunction, deleteFunction, getFunction, listFunctions, updateFunction } from './functions.service.ts';
import { invokerOf } from './executions.service.ts';
import { functionStats, lastInvocations } from './stats.ts';

/** The functions area answers in the `{success: true, data}` envelope. */
const reply = (ctx: Context, data: unknown, status = 200) => {
  ctx.status = status;
  ctx.body = { success: true, data };
};

export function functionsRoutes(services: Services): Router {
  const { em } = services;
  const invoker = invokerOf(services);
  const account = (ctx: Context) => callerOf(ctx.state).accountId;
  const id = (ctx: Context) => (ctx.params as Record<string, string>).id!;
  return apiRouter('/v1/functions')
    .get('/', requireScope('functions:read'), async (ctx) => {
      const query = parseQuery(listFunctionsQuery, ctx.query);
      const [functions, total] = await listFunctions(em(), account(ctx), query);
      const last = await lastInvocations(
        em(),
        functions.map((fn) => fn.id),
      );
      const items = functions.map((fn) => functionListItem(fn, last.get(fn.id)));
      ctx.body = pageEnvelope(items, query, total);
    })
    .post('/', requireScope('functions:write'), async (ctx) => {
      const fn = await createFunction(em(), account(ctx), parseBody(createFunctionBody, ctx.request.body));
      reply(ctx, functionView(fn, { code: true }), 201);
    })
    .get('/:id', requireScope('functions:read'), async (ctx) => {
      const { include_code } = parseQuery(getFunctionQuery, ctx.query);
      const fn = await getFunction(em(), account(ctx), id(ctx));
      reply(ctx, functionView(fn, { code: include_code === 'true', stats: await functionStats(em(), fn.id) }));
    })
    .put('/:id', requireScope('functions:write'), async (ctx) => {
      const input = parseBody(updateFunctionBody, ctx.request.body);
      const fn = await updateFunction(em(), account(ctx), id(ctx), input);
      reply(ctx, functionView(fn, { code: true, stats: await functionStats(em(), fn.id) }));
    })
    .delete('/:id', requireScope('functions:write'), async (ctx) => {
      await deleteFunction(em(), invoker, account(ctx), id(ctx));
      await stopAutomationsOfFunction(em(), triggerControlOf(services), id(ctx));
      reply(ctx, { id: id(ctx), deleted: true });
    })
    .get('/:id/environment', requireScope('functions:read'), async (ctx) => {
      reply(ctx, (await getFunction(em(), account(ctx), id(ctx))).environment);
    })
    .put('/:id/environment', requireScope('functions:write'), async (ctx) => {
      const variables = parseBody(environment, ctx.request.body);
      reply(ctx, (await updateFunction(em(), account(ctx), id(ctx), { environment: variables })).environment);
    })
    .put('/:id/secrets', requireScope('functions:write'), async (ctx) => {
      const { secrets } = parseBody(functionSecretsBody, ctx.request.body);
      reply(ctx, { secrets: (await updateFunction(em(), account(ctx), id(ctx), { secrets })).secrets });
    });
}

import type { Router } from '@koa/router';
import { areaRouter, data, dataPage, route } from '../api/route-kit.ts';
import type { Services } from '../services.ts';
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

/** What other areas do when a function is gone (the automations that run it stop). */
export interface FunctionHooks {
  functionDeleted(functionId: string): Promise<void>;
}

/** The functions area answers in the `{success: true, data}` envelope. */
export function functionsRoutes(services: Services, hooks: FunctionHooks): Router {
  const { em } = services;
  const invoker = invokerOf(services);
  return areaRouter('/v1/functions', [
    route({
      method: 'get',
      path: '/',
      scope: 'functions:read',
      query: listFunctionsQuery,
      handle: async ({ accountId, query }) => {
        const [functions, total] = await listFunctions(em(), accountId, query);
        const last = await lastInvocations(
          em(),
          functions.map((fn) => fn.id),
        );
        return dataPage(
          functions.map((fn) => functionListItem(fn, last.get(fn.id))),
          query,
          total,
        );
      },
    }),
    route({
      method: 'post',
      path: '/',
      scope: 'functions:write',
      body: createFunctionBody,
      handle: async ({ accountId, body }) =>
        data(functionView(await createFunction(em(), accountId, body), { code: true }), 201),
    }),
    route({
      method: 'get',
      path: '/:id',
      scope: 'functions:read',
      query: getFunctionQuery,
      handle: async ({ accountId, params, query }) => {
        const fn = await getFunction(em(), accountId, params.id);
        return data(functionView(fn, { code: query.include_code === 'true', stats: await functionStats(em(), fn.id) }));
      },
    }),
    route({
      method: 'put',
      path: '/:id',
      scope: 'functions:write',
      body: updateFunctionBody,
      handle: async ({ accountId, params, body }) => {
        const fn = await updateFunction(em(), accountId, params.id, body);
        return data(functionView(fn, { code: true, stats: await functionStats(em(), fn.id) }));
      },
    }),
    route({
      method: 'delete',
      path: '/:id',
      scope: 'functions:write',
      handle: async ({ accountId, params }) => {
        await deleteFunction(em(), invoker, accountId, params.id);
        await hooks.functionDeleted(params.id);
        return data({ id: params.id, deleted: true });
      },
    }),
    route({
      method: 'get',
      path: '/:id/environment',
      scope: 'functions:read',
      handle: async ({ accountId, params }) => data((await getFunction(em(), accountId, params.id)).environment),
    }),
    route({
      method: 'put',
      path: '/:id/environment',
      scope: 'functions:write',
      body: environment,
      handle: async ({ accountId, params, body }) =>
        data((await updateFunction(em(), accountId, params.id, { environment: body })).environment),
    }),
    route({
      method: 'put',
      path: '/:id/secrets',
      scope: 'functions:write',
      body: functionSecretsBody,
      handle: async ({ accountId, params, body }) =>
        data({ secrets: (await updateFunction(em(), accountId, params.id, { secrets: body.secrets })).secrets }),
    }),
  ]);
}

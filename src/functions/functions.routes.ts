import type { Router } from '@koa/router';
import { z } from 'zod';
import { callerOf } from '../api/auth.ts';
import { dataEnvelope, dataPageEnvelope } from '../wire/response-schemas.ts';
import { areaRouter, data, dataPage, route } from '../api/route-kit.ts';
import type { Services } from '../services.ts';
import { functionListItem, functionListItemSchema, functionSchema, functionView } from './function.view.ts';
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
import { idempotent } from '../api/idempotency.ts';

const environmentSchema = z.record(z.string(), z.string());

/** What other areas do when a function is gone (the automations that run it stop). */
interface FunctionHooks {
  functionDeleted(functionId: string): Promise<void>;
}

/** The functions area answers in the `{success: true, data}` envelope. */
export function functionsRoutes(services: Services, hooks: FunctionHooks): Router {
  // Creates and invokes are safe to repeat under an Idempotency-Key.
  const keyed = idempotent(services);
  const { em } = services;
  const invoker = invokerOf(services);
  return areaRouter('/v1/functions', [
    route({
      method: 'get',
      path: '/',
      scope: 'functions:read',
      query: listFunctionsQuery,
      responses: { 200: dataPageEnvelope(functionListItemSchema) },
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
      idempotency: keyed,
      body: createFunctionBody,
      responses: { 201: dataEnvelope(functionSchema) },
      handle: async ({ ctx, body }) =>
        data(functionView(await createFunction(em(), callerOf(ctx.state), body), { code: true }), 201),
    }),
    route({
      method: 'get',
      path: '/:id',
      scope: 'functions:read',
      query: getFunctionQuery,
      responses: { 200: dataEnvelope(functionSchema) },
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
      responses: { 200: dataEnvelope(functionSchema) },
      handle: async ({ ctx, params, body }) => {
        const fn = await updateFunction(em(), callerOf(ctx.state), params.id, body);
        return data(functionView(fn, { code: true, stats: await functionStats(em(), fn.id) }));
      },
    }),
    route({
      method: 'delete',
      path: '/:id',
      scope: 'functions:write',
      responses: { 200: dataEnvelope(z.strictObject({ id: z.string(), deleted: z.literal(true) })) },
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
      responses: { 200: dataEnvelope(environmentSchema) },
      handle: async ({ accountId, params }) => data((await getFunction(em(), accountId, params.id)).environment),
    }),
    route({
      method: 'put',
      path: '/:id/environment',
      scope: 'functions:write',
      body: environment,
      responses: { 200: dataEnvelope(environmentSchema) },
      handle: async ({ ctx, params, body }) =>
        data((await updateFunction(em(), callerOf(ctx.state), params.id, { environment: body })).environment),
    }),
    route({
      method: 'put',
      path: '/:id/secrets',
      scope: 'functions:write',
      body: functionSecretsBody,
      responses: { 200: dataEnvelope(z.strictObject({ secrets: z.array(z.string()) })) },
      handle: async ({ ctx, params, body }) =>
        data({ secrets: (await updateFunction(em(), callerOf(ctx.state), params.id, body)).secrets }),
    }),
  ]);
}

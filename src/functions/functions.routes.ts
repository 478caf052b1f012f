import type { Router } from '@koa/router';
import { z } from 'zod';
import { dataEnvelope, dataPageEnvelope } from '../wire/response-schemas.ts';
import { areaRouter, data, dataPage, route } from '../api/route-kit.ts';
import { functionDetails, functionListItem, functionListItemSchema, functionSchema } from './function.view.ts';
import {
  createFunctionBody,
  environment,
  functionSecretsBody,
  getFunctionQuery,
  listFunctionsQuery,
  updateFunctionBody,
} from './functions.schemas.ts';
import { createFunction, deleteFunction, getFunction, listFunctions, updateFunction } from './functions.service.ts';
import { invokerOf, type InvokerResources } from './executions.service.ts';
import { lastInvocations } from './stats.ts';
import { idempotent } from '../api/idempotency.ts';

const environmentSchema = z.record(z.string(), z.string());

/** What other areas do when a function is gone (the automations that run it stop). */
interface FunctionHooks {
  functionDeleted(functionId: string): Promise<void>;
}

/** The functions area answers in the `{success: true, data}` envelope. */
export function functionsRoutes(resources: InvokerResources, hooks: FunctionHooks): Router {
  // Creates and invokes are safe to repeat under an Idempotency-Key.
  const keyed = idempotent(resources);
  const { em } = resources;
  const invoker = invokerOf(resources);
  const limits = resources.config.quotas;
  return areaRouter('/v1/functions', [
    route({
      method: 'get',
      path: '/',
      summary: 'List functions',
      description:
        "Returns the account's functions, newest first (`sort` and `order` change that), filtered by `tag`, `runtime` or an exact `name`. Items carry `lastInvocation` and no code.",
      tag: 'Functions',
      scope: 'functions:read',
      query: listFunctionsQuery,
      responses: { 200: dataPageEnvelope(functionListItemSchema, 'FunctionPage') },
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
      errors: ['invalid_function_code', 'conflict', 'function_limit_reached'],
      summary: 'Create a function',
      description:
        'Creates a function (its version 1) and returns it with its `code`. `name` is unique in the account (409 otherwise); code that does not parse, or has no entry point, is a 400 `invalid_function_code` with its line and column. Safe to repeat under an `Idempotency-Key`.',
      tag: 'Functions',
      scope: 'functions:write',
      idempotency: keyed,
      body: createFunctionBody,
      responses: { 201: dataEnvelope(functionSchema) },
      handle: async ({ actor, body }) => {
        const fn = await createFunction(em(), actor, body, limits);
        return data(await functionDetails(em(), fn), 201);
      },
    }),
    route({
      method: 'get',
      path: '/:id',
      errors: ['function_not_found'],
      summary: 'Retrieve a function',
      description: 'Returns a function with its execution `stats`; `include_code=true` adds its `code`.',
      tag: 'Functions',
      scope: 'functions:read',
      query: getFunctionQuery,
      responses: { 200: dataEnvelope(functionSchema) },
      handle: async ({ accountId, params, query }) => {
        const fn = await getFunction(em(), accountId, params.id);
        return data(await functionDetails(em(), fn, query.include_code));
      },
    }),
    route({
      method: 'put',
      path: '/:id',
      errors: ['function_not_found', 'invalid_function_code', 'conflict'],
      summary: 'Update a function',
      description:
        'Changes the fields sent and returns the function with its `code` and `stats`. A change of `code`, `runtime`, `timeout`, `environment`, `secrets` or `allowedHosts` makes a new version (its number is `version` in the answer); `name`, `description` and `tags` are not versioned.',
      tag: 'Functions',
      scope: 'functions:write',
      body: updateFunctionBody,
      responses: { 200: dataEnvelope(functionSchema) },
      handle: async ({ actor, params, body }) => {
        const fn = await updateFunction(em(), actor, params.id, body, limits);
        return data(await functionDetails(em(), fn));
      },
    }),
    route({
      method: 'delete',
      path: '/:id',
      errors: ['function_not_found'],
      summary: 'Delete a function',
      description:
        'Cancels the function\'s running executions, then deletes it and its history. Automations that run it stop, in `error` with `details.reason: "function_deleted"`.',
      tag: 'Functions',
      scope: 'functions:write',
      responses: { 200: dataEnvelope(z.strictObject({ id: z.string(), deleted: z.literal(true) })) },
      handle: async ({ actor, params }) => {
        await deleteFunction(em(), invoker, actor, params.id);
        await hooks.functionDeleted(params.id);
        return data({ id: params.id, deleted: true });
      },
    }),
    route({
      method: 'get',
      path: '/:id/environment',
      errors: ['function_not_found'],
      summary: 'Retrieve environment variables',
      description: "Returns the function's environment variables, as its runs read them.",
      tag: 'Functions',
      scope: 'functions:read',
      responses: { 200: dataEnvelope(environmentSchema) },
      handle: async ({ accountId, params }) => data((await getFunction(em(), accountId, params.id)).environment),
    }),
    route({
      method: 'put',
      path: '/:id/environment',
      errors: ['function_not_found'],
      summary: 'Replace environment variables',
      description:
        "Replaces the function's environment variables whole (string values, at most 100) and returns them; a change makes a new version.",
      tag: 'Functions',
      scope: 'functions:write',
      body: environment,
      responses: { 200: dataEnvelope(environmentSchema) },
      handle: async ({ actor, params, body }) =>
        data((await updateFunction(em(), actor, params.id, { environment: body }, limits)).environment),
    }),
    route({
      method: 'put',
      path: '/:id/secrets',
      errors: ['function_not_found'],
      summary: 'Grant secrets to a function',
      description:
        "Replaces the names of the account's secrets the function's runs may read (each an existing secret, named once, at most 100); a change makes a new version. Values are never answered.",
      tag: 'Functions',
      scope: 'functions:write',
      body: functionSecretsBody,
      responses: { 200: dataEnvelope(z.strictObject({ secrets: z.array(z.string()) })) },
      handle: async ({ actor, params, body }) =>
        data({ secrets: (await updateFunction(em(), actor, params.id, body, limits)).secrets }),
    }),
  ]);
}

import type { Router } from '@koa/router';
import { paginationOf } from '../wire/pagination.ts';
import { deletedMessage } from '../wire/response-schemas.ts';
import { areaRouter, bare, route } from '../api/route-kit.ts';
import type { Resources } from '../resources.ts';
import { secretListItem, secretListSchema, secretSchema, secretView } from './secret.view.ts';
import { createSecretBody, listSecretsQuery, updateSecretBody } from './secrets.schemas.ts';
import { createSecret, deleteSecret, getSecret, listSecrets, updateSecret } from './secrets.service.ts';
import { idempotent } from '../api/idempotency.ts';

/** The secrets area: bare responses, upper-case error codes; values are write-only. */
export function secretsRoutes(resources: Resources): Router {
  // Creates and invokes are safe to repeat under an Idempotency-Key.
  const keyed = idempotent(resources);
  const { em, masterKeys } = resources;
  return areaRouter('/v1/secrets', [
    route({
      method: 'get',
      path: '/',
      summary: 'List secrets',
      description: "Returns the account's secrets, newest first: names and dates, never a value.",
      tag: 'Secrets',
      scope: 'secrets:read',
      query: listSecretsQuery,
      responses: { 200: secretListSchema },
      handle: async ({ accountId, query }) => {
        const { secrets, total } = await listSecrets(em(), accountId, query);
        return bare({ secrets: secrets.map(secretListItem), pagination: paginationOf(query, secrets.length, total) });
      },
    }),
    route({
      method: 'post',
      path: '/',
      errors: ['conflict'],
      summary: 'Create a secret',
      description:
        'Stores a value under a name unique in the account (409 `CONFLICT` otherwise), sealed at rest, and returns its metadata: the value is never answered. Grant it to a function with `PUT /v1/functions/{id}/secrets`. Safe to repeat under an `Idempotency-Key`.',
      tag: 'Secrets',
      scope: 'secrets:write',
      idempotency: keyed,
      body: createSecretBody,
      responses: { 201: secretSchema },
      handle: async ({ actor, body }) => bare(secretView(await createSecret(em(), masterKeys, actor, body)), 201),
    }),
    route({
      method: 'get',
      path: '/:id',
      errors: ['not_found'],
      summary: 'Retrieve a secret',
      description: "Returns the secret's metadata, never its value.",
      tag: 'Secrets',
      scope: 'secrets:read',
      responses: { 200: secretSchema },
      handle: async ({ accountId, params }) => bare(secretView(await getSecret(em(), accountId, params.id))),
    }),
    route({
      method: 'put',
      path: '/:id',
      errors: ['not_found', 'conflict'],
      summary: 'Update a secret',
      description:
        'Sets a new `value` (a new version, which functions read from then on) and/or its `description` (`null` clears it). The name cannot change.',
      tag: 'Secrets',
      scope: 'secrets:write',
      body: updateSecretBody,
      responses: { 200: secretSchema },
      handle: async ({ actor, params, body }) =>
        bare(secretView(await updateSecret(em(), masterKeys, actor, params.id, body))),
    }),
    route({
      method: 'delete',
      path: '/:id',
      errors: ['not_found'],
      summary: 'Delete a secret',
      description: 'Deletes the secret and every version of its value.',
      tag: 'Secrets',
      scope: 'secrets:write',
      responses: { 200: deletedMessage },
      handle: async ({ actor, params }) => {
        await deleteSecret(em(), actor, params.id);
        return bare({ success: true, message: 'Secret permanently deleted.' });
      },
    }),
  ]);
}

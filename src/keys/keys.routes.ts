import type { Router } from '@koa/router';
import { areaRouter, bare, route } from '../api/route-kit.ts';
import { callerOf } from '../api/auth.ts';
import type { Resources } from '../resources.ts';
import { paginationOf } from '../wire/pagination.ts';
import { deletedMessage } from '../wire/response-schemas.ts';
import { createdKeySchema, createKeyBody, keyListSchema, listKeysQuery } from './keys.schemas.ts';
import { createManagedKey, listManagedKeys, revokeManagedKey } from './managed-keys.ts';

/** The keys area: an account's API keys, made, listed and revoked by a key holding `keys:admin`. */
export function keysRoutes(resources: Resources): Router {
  const { em } = resources;
  return areaRouter('/v1/keys', [
    route({
      method: 'get',
      path: '/',
      summary: 'List keys',
      description:
        "Returns the account's keys not revoked, newest first (expired ones too, by `expiresAt`): names, prefixes, roles and scopes, never a key. Needs `keys:admin`.",
      tag: 'Keys',
      scope: 'keys:admin',
      query: listKeysQuery,
      responses: { 200: keyListSchema },
      handle: async ({ accountId, query }) => {
        const { keys, total } = await listManagedKeys(em(), accountId, query);
        return bare({ keys, pagination: paginationOf(query, keys.length, total) });
      },
    }),
    route({
      method: 'post',
      path: '/',
      summary: 'Create a key',
      description:
        'Makes a key of the account with a `role` or a list of `scopes` (docs/api.md, "Keys and roles"), and answers it once in `key`: it is stored only as its hash. A key cannot grant a scope it does not hold (403 `forbidden`, `details.missingScopes`). Needs `keys:admin`.',
      tag: 'Keys',
      scope: 'keys:admin',
      body: createKeyBody,
      responses: { 201: createdKeySchema },
      handle: async ({ ctx, actor, body }) => bare(await createManagedKey(em(), callerOf(ctx.state), actor, body), 201),
    }),
    route({
      method: 'delete',
      path: '/:id',
      errors: ['key_not_found', 'last_key_manager'],
      summary: 'Revoke a key',
      description:
        "Revokes the key at once: its next request, to any API process, gets the 401 of an unknown key. The account's last usable key holding `keys:admin` or `*`, and its last `*` key, cannot be revoked (409 `last_key_manager`). Needs `keys:admin`.",
      tag: 'Keys',
      scope: 'keys:admin',
      responses: { 200: deletedMessage },
      handle: async ({ actor, params }) => {
        await revokeManagedKey(em(), actor, params.id);
        return bare({ success: true, message: 'Key revoked.' });
      },
    }),
  ]);
}

import type { Router } from '@koa/router';
import { callerOf, requireScope } from '../api/auth.ts';
import { paginationOf } from '../api/pagination.ts';
import { parseBody, parseQuery } from '../api/validate.ts';
import { apiRouter } from '../api/router.ts';
import type { Services } from '../services.ts';
import type { Secret } from './secret.entity.ts';
import { createSecretBody, listSecretsQuery, updateSecretBody } from './secrets.schemas.ts';
import { createSecret, deleteSecret, getSecret, listSecrets, updateSecret } from './secrets.service.ts';

const metadata = (secret: Secret) => ({
  id: secret.id,
  name: secret.name,
  description: secret.description ?? null,
  createdAt: secret.createdAt.toISOString(),
  updatedAt: secret.updatedAt.toISOString(),
});

/** The secrets area: bare responses, upper-case error codes; values are write-only. */
export function secretsRoutes(services: Services): Router {
  const { em, masterKeys } = services;
  const account = (state: Record<string, unknown>) => callerOf(state).accountId;
  return apiRouter('/v1/secrets')
    .get('/', requireScope('secrets:read'), async (ctx) => {
      const page = parseQuery(listSecretsQuery, ctx.query);
      const { secrets, total } = await listSecrets(em(), account(ctx.state), page);
      const items = secrets.map(({ id, name, createdAt, updatedAt }) => ({
        id,
        name,
        createdAt: createdAt.toISOString(),
        updatedAt: updatedAt.toISOString(),
      }));
      ctx.body = { secrets: items, pagination: paginationOf(page, items.length, total) };
    })
    .post('/', requireScope('secrets:write'), async (ctx) => {
      const input = parseBody(createSecretBody, ctx.request.body);
      ctx.status = 201;
      ctx.body = metadata(await createSecret(em(), masterKeys, account(ctx.state), input));
    })
    .get('/:id', requireScope('secrets:read'), async (ctx) => {
      ctx.body = metadata(await getSecret(em(), account(ctx.state), ctx.params.id!));
    })
    .put('/:id', requireScope('secrets:write'), async (ctx) => {
      const input = parseBody(updateSecretBody, ctx.request.body);
      ctx.body = metadata(await updateSecret(em(), masterKeys, account(ctx.state), ctx.params.id!, input));
    })
    .delete('/:id', requireScope('secrets:write'), async (ctx) => {
      await deleteSecret(em(), account(ctx.state), ctx.params.id!);
      ctx.body = { success: true, message: 'Secret permanently deleted.' };
    });
}

import { Router } from '@koa/router';
import type { Services } from '../services.ts';
import { callerOf } from '../api/auth.ts';
import { Account } from './account.entity.ts';

/** GET /v1/account: the caller's own account; any valid key may read it. */
export function accountRoutes(services: Services): Router {
  return new Router().get('/v1/account', async (ctx) => {
    const account = await services.em().findOneOrFail(Account, { id: callerOf(ctx.state).accountId });
    ctx.body = { id: account.id, name: account.name, signer: null, createdAt: account.createdAt.toISOString() };
  });
}

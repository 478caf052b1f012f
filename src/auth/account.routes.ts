import type { Router } from '@koa/router';
import type { Services } from '../services.ts';
import { callerOf } from '../api/auth.ts';
import { apiRouter } from '../api/router.ts';
import { findSigner } from '../chain/signer.ts';
import { Account } from './account.entity.ts';

/** GET /v1/account: the caller's own account; any valid key may read it. */
export function accountRoutes(services: Services): Router {
  return apiRouter().get('/v1/account', async (ctx) => {
    const em = services.em();
    const account = await em.findOneOrFail(Account, { id: callerOf(ctx.state).accountId });
    const signer = await findSigner(em, account.id);
    ctx.body = { id: account.id, name: account.name, signer, createdAt: account.createdAt.toISOString() };
  });
}

import type { Router } from '@koa/router';
import { z } from 'zod';
import { isoTime } from '../api/response-schemas.ts';
import type { Services } from '../services.ts';
import { areaRouter, bare, route } from '../api/route-kit.ts';
import { findSigner } from './signer.ts';
import { Account } from './account.entity.ts';

const accountSchema = z.strictObject({
  id: z.string(),
  name: z.string(),
  signer: z.strictObject({ address: z.string(), scriptHash: z.string() }).nullable(),
  createdAt: isoTime,
});

/** GET /v1/account: the caller's own account; any valid key may read it. */
export function accountRoutes(services: Services): Router {
  return areaRouter('/v1/account', [
    route({
      method: 'get',
      path: '/',
      responses: { 200: accountSchema },
      handle: async ({ accountId }) => {
        const em = services.em();
        const account = await em.findOneOrFail(Account, { id: accountId });
        const signer = await findSigner(em, account.id);
        return bare({ id: account.id, name: account.name, signer, createdAt: account.createdAt.toISOString() });
      },
    }),
  ]);
}

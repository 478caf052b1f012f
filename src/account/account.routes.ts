import type { Router } from '@koa/router';
import { z } from 'zod';
import { isoTime } from '../wire/response-schemas.ts';
import type { Resources } from '../resources.ts';
import { areaRouter, bare, route } from '../api/route-kit.ts';
import { budgetSchema } from '../chain/gas-budget.ts';
import { accountSpend } from '../automations/budget/gas-spend.ts';
import { findSigner } from '../signers/default-signer.ts';
import { networkFiguresSchema, networkFigures, spendSchema } from '../signers/signer-networks.ts';
import { Account } from '../auth/account.entity.ts';
import { setDefaultBudget } from './account.service.ts';

const accountSchema = z
  .strictObject({
    id: z.string(),
    name: z.string(),
    signer: z
      .strictObject({
        address: z.string(),
        scriptHash: z.string(),
        /** The signer's GAS on the first network (`networks[0]`) as the chain has it now; null when no node answered in time. */
        gasBalance: z.string().nullable(),
      })
      .nullable(),
    /** The default budget of its automations that send and set none of their own. */
    budget: budgetSchema.nullable(),
    /** What its automations of the first network spent (`networks[0].spend`). */
    spend: spendSchema,
    /** Per configured network, in the configured order: the signer's GAS there, and what the account's automations there spent. */
    networks: z.array(networkFiguresSchema),
    createdAt: isoTime,
  })
  .meta({ id: 'Account' });

const updateAccountBody = z
  .strictObject({
    /** null: automations without a budget of their own spend unbounded again. */
    budget: budgetSchema.nullable(),
  })
  .meta({ id: 'AccountUpdate' });

/**
 * GET /v1/account: the caller's own account; any valid key may read it. PATCH sets the account's
 * default budget (a key that may change automations).
 */
export function accountRoutes(resources: Resources): Router {
  const view = async (accountId: string) => {
    const em = resources.em();
    const account = await em.findOneOrFail(Account, { id: accountId });
    const signer = await findSigner(em, account.id);
    const networks = await networkFigures(resources.networks.pools, signer?.address ?? null, (network) =>
      accountSpend(em.fork(), account.id, network),
    );
    // The first network's, as the account showed before it had several.
    const [first] = networks;
    return {
      id: account.id,
      name: account.name,
      signer: signer && { ...signer, gasBalance: first!.gasBalance },
      budget: account.budget ?? null,
      spend: first!.spend,
      networks,
      createdAt: account.createdAt.toISOString(),
    };
  };
  return areaRouter('/v1/account', [
    route({
      method: 'get',
      path: '/',
      summary: 'Retrieve your account',
      description:
        "Returns the caller's account: its signer (the address that pays its transactions' GAS on every network), its default budget, and per configured network (`networks`) the signer's GAS balance there (`null` when no node of it answered within 2 s) and what the account's automations there spent. `signer.gasBalance` and `spend` are the first network's. Any valid key may read it.",
      tag: 'Account',
      responses: { 200: accountSchema },
      handle: async ({ accountId }) => bare(await view(accountId)),
    }),
    route({
      method: 'patch',
      path: '/',
      summary: 'Set the default budget',
      description:
        "Sets the GAS budget of each of the account's automations that send and set none of their own (`null` removes it), and returns the account. Needs `automations:write`.",
      tag: 'Account',
      scope: 'automations:write',
      body: updateAccountBody,
      responses: { 200: accountSchema },
      handle: async ({ accountId, actor, body }) => {
        await setDefaultBudget(resources.em(), actor, body.budget);
        return bare(await view(accountId));
      },
    }),
  ]);
}

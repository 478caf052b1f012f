import type { Router } from '@koa/router';
import { z } from 'zod';
import { isoTime } from '../wire/response-schemas.ts';
import type { Resources } from '../resources.ts';
import { areaRouter, bare, route } from '../api/route-kit.ts';
import { budgetSchema } from '../chain/gas-budget.ts';
import { accountSpend } from '../automations/budget/gas-spend.ts';
import { gasText } from '../chain/gas-amount.ts';
import type { NeoRpc } from '../chain/rpc.ts';
import { findSigner, type SignerSummary } from '../auth/signer.ts';
import { Account } from '../auth/account.entity.ts';

const accountSchema = z
  .strictObject({
    id: z.string(),
    name: z.string(),
    signer: z
      .strictObject({
        address: z.string(),
        scriptHash: z.string(),
        /** The signer's GAS as the chain has it now; null when the node did not answer in time. */
        gasBalance: z.string().nullable(),
      })
      .nullable(),
    /** The default budget of its automations that send and set none of their own. */
    budget: budgetSchema.nullable(),
    /** GAS its transactions cost, landed and reserved: today (the UTC day) and in all; `reserved` of it not yet in a block. */
    spend: z.strictObject({ today: z.string(), total: z.string(), reserved: z.string() }),
    createdAt: isoTime,
  })
  .meta({ id: 'Account' });

const updateAccountBody = z
  .strictObject({
    /** null: automations without a budget of their own spend unbounded again. */
    budget: budgetSchema.nullable(),
  })
  .meta({ id: 'AccountUpdate' });

/** How long GET /v1/account waits for the signer's balance before answering without it. */
const balanceWaitMs = 2_000;

/** The signer's GAS, in GAS; null when the node cannot tell in time (the account still answers). */
async function gasBalanceOf(neo: NeoRpc, signer: SignerSummary): Promise<string | null> {
  try {
    const balance = await neo.getBalance(signer.address, 'GAS', AbortSignal.timeout(balanceWaitMs));
    return gasText(BigInt(balance.amount));
  } catch {
    return null;
  }
}

/**
 * GET /v1/account: the caller's own account; any valid key may read it. PATCH sets the account's
 * default budget (a key that may change automations).
 */
export function accountRoutes(resources: Resources): Router {
  const view = async (accountId: string) => {
    const em = resources.em();
    const account = await em.findOneOrFail(Account, { id: accountId });
    const signer = await findSigner(em, account.id);
    const [gasBalance, spend] = await Promise.all([
      signer ? gasBalanceOf(resources.neo, signer) : null,
      accountSpend(em, account.id),
    ]);
    return {
      id: account.id,
      name: account.name,
      signer: signer && { ...signer, gasBalance },
      budget: account.budget ?? null,
      spend: { today: gasText(spend.today), total: gasText(spend.total), reserved: gasText(spend.reserved) },
      createdAt: account.createdAt.toISOString(),
    };
  };
  return areaRouter('/v1/account', [
    route({
      method: 'get',
      path: '/',
      summary: 'Retrieve your account',
      description:
        "Returns the caller's account: its signer (the address that pays its transactions' GAS, and its balance, `null` when the node did not answer within 2 s), its default budget and what it spent. Any valid key may read it.",
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
      handle: async ({ accountId, body }) => {
        await resources.em().nativeUpdate(Account, { id: accountId }, { budget: body.budget, updatedAt: new Date() });
        return bare(await view(accountId));
      },
    }),
  ]);
}

import type { Router } from '@koa/router';
import { z } from 'zod';
import { isoTime } from '../wire/response-schemas.ts';
import type { Resources } from '../resources.ts';
import { areaRouter, bare, route } from '../api/route-kit.ts';
import { budgetSchema } from '../chain/gas-budget.ts';
import { accountSpend } from '../automations/budget/gas-spend.ts';
import { gasText } from '../chain/gas-amount.ts';
import type { NeoRpc } from '../chain/rpc.ts';
import { findSigner, type SignerSummary } from '../signers/default-signer.ts';
import { Account } from '../auth/account.entity.ts';

/** GAS its transactions cost, landed and reserved: today (the UTC day) and in all; `reserved` of it not yet in a block. */
const spendSchema = z.strictObject({ today: z.string(), total: z.string(), reserved: z.string() });

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
    networks: z.array(
      z
        .strictObject({
          name: z.string(),
          /** null without a signer, or when no node of the network answered in time. */
          gasBalance: z.string().nullable(),
          spend: spendSchema,
        })
        .meta({ id: 'AccountNetwork' }),
    ),
    createdAt: isoTime,
  })
  .meta({ id: 'Account' });

const updateAccountBody = z
  .strictObject({
    /** null: automations without a budget of their own spend unbounded again. */
    budget: budgetSchema.nullable(),
  })
  .meta({ id: 'AccountUpdate' });

/** How long GET /v1/account waits for the signer's balance on each network before answering without it. */
const balanceWaitMs = 2_000;

/** The signer's GAS, in GAS; null without a signer, or when the node cannot tell in time (the account still answers). */
async function gasBalanceOf(neo: NeoRpc, signer: SignerSummary | null): Promise<string | null> {
  if (!signer) return null;
  try {
    const balance = await neo.getBalance(signer.address, 'GAS', AbortSignal.timeout(balanceWaitMs));
    return gasText(BigInt(balance.amount));
  } catch {
    return null;
  }
}

const spendText = (spend: { today: bigint; total: bigint; reserved: bigint }) => ({
  today: gasText(spend.today),
  total: gasText(spend.total),
  reserved: gasText(spend.reserved),
});

/**
 * GET /v1/account: the caller's own account; any valid key may read it. PATCH sets the account's
 * default budget (a key that may change automations).
 */
export function accountRoutes(resources: Resources): Router {
  const view = async (accountId: string) => {
    const em = resources.em();
    const account = await em.findOneOrFail(Account, { id: accountId });
    const signer = await findSigner(em, account.id);
    // Every network's balance is asked at once, each bounded: one slow network delays none of the others.
    const networks = await Promise.all(
      resources.networks.pools.map(async (pool) => {
        const [gasBalance, spend] = await Promise.all([
          gasBalanceOf(pool, signer),
          accountSpend(em.fork(), account.id, pool.name),
        ]);
        return { name: pool.name, gasBalance, spend: spendText(spend) };
      }),
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
      handle: async ({ accountId, body }) => {
        await resources.em().nativeUpdate(Account, { id: accountId }, { budget: body.budget, updatedAt: new Date() });
        return bare(await view(accountId));
      },
    }),
  ]);
}

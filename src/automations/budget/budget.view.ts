import type { EntityManager } from '@mikro-orm/postgresql';
import { z } from 'zod';
import { accountBudget } from '../../auth/account.sql.ts';
import { gasText } from '../../chain/gas-amount.ts';
import type { Automation } from '../model/automation.entity.ts';
import { budgetInForce, leftOf } from './budget-rules.ts';
import { sendsTransactions } from '../model/action.schemas.ts';
import { budgetSchema } from '../../chain/gas-budget.ts';
import { automationSpend } from './gas-spend.ts';

/**
 * What an automation that sends may still spend: the budget in force (its own, else its account's
 * default), what it spent today (the UTC day) and in all, landed transactions and reserved ones
 * alike, how much of that is reserved for transactions not yet in a block, and what is left.
 */
export async function gasView(em: EntityManager, automation: Automation) {
  if (!sendsTransactions(automation.action)) return undefined;
  const inForce = budgetInForce(automation.budget ?? null, await accountBudget(em, automation.account.id));
  const spend = await automationSpend(em, automation.id);
  return {
    budget: inForce?.budget ?? null,
    budgetFrom: inForce?.from ?? null,
    spentToday: gasText(spend.today),
    spentTotal: gasText(spend.total),
    reserved: gasText(spend.reserved),
    leftToday: leftOf(inForce?.budget.perDay, spend.today),
    leftTotal: leftOf(inForce?.budget.total, spend.total),
  };
}

export const gasSchema = z
  .strictObject({
    budget: budgetSchema.nullable(),
    budgetFrom: z.enum(['automation', 'account']).nullable(),
    spentToday: z.string(),
    spentTotal: z.string(),
    reserved: z.string(),
    /** Null without a perDay (or total) limit. */
    leftToday: z.string().nullable(),
    leftTotal: z.string().nullable(),
  })
  .meta({ id: 'Gas' });

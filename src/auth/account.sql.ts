import type { EntityManager } from '@mikro-orm/postgresql';
import type { Account } from './account.entity.ts';

/** The hand-written statements of the `accounts` table (the entity's own writes go through the ORM). */

/** The account's default GAS budget of its automations; null: none, or no such account. */
export async function accountBudget(
  em: EntityManager,
  accountId: string,
): Promise<NonNullable<Account['budget']> | null> {
  const [account] = await em.execute<{ budget: Account['budget'] | null }[]>(
    `select "budget" from "accounts" where "id" = ?`,
    [accountId],
  );
  return account?.budget ?? null;
}

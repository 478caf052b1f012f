import type { EntityManager } from '@mikro-orm/postgresql';
import { executeBound } from '../db/bound-statement.ts';

/** The hand-written statements of the `automations` table (the entity's own writes go through the ORM). */

/**
 * The account of the automation if it was active at `at`: active now, or changed since (a fire
 * scheduled before the row last changed counts); undefined otherwise, or once it is deleted.
 */
export async function accountIfActiveAt(em: EntityManager, automationId: string, at: Date) {
  const [automation] = (
    await executeBound<{ account_id: string }>(
      em,
      `select "account_id" from "automations" where "id" = ? and ("status" = 'active' or "updated_at" > ?)`,
      [automationId, at],
    )
  ).rows;
  return automation?.account_id;
}

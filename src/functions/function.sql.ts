import type { EntityManager } from '@mikro-orm/postgresql';
import type { Language } from './function.entity.ts';
import { executeBound } from '../db/bound-statement.ts';

/** The hand-written statements of the `functions` table (the entity's own writes go through the ORM). */

/**
 * The per-function lock of storage commits, taken first in their transaction (FOR NO KEY UPDATE:
 * invokes inserting executions, which only share the key, never wait on it; an update or delete of
 * the function does, for one commit).
 */
export async function lockStore(tx: EntityManager, functionId: string) {
  await tx.execute(`select 1 from "functions" where "id" = ? for no key update`, [functionId]);
}

/**
 * Whether the account owns the function (undefined: it does not, or it does not exist), and
 * whether the function has `version` (false when none is asked), in one statement: an
 * automation's create checks the function its action runs with it, at ~100 creates a second.
 */
export async function ownedFunction(em: EntityManager, accountId: string, functionId: string, version?: number) {
  const { rows } = await executeBound<{ has_version: boolean }>(
    em,
    `select exists (select 1 from "function_versions" "v" where "v"."function_id" = "f"."id" and "v"."version" = ?) as "has_version"
      from "functions" "f" where "f"."id" = ? and "f"."account_id" = ?`,
    [version ?? null, functionId, accountId],
  );
  return rows[0] && { hasVersion: rows[0].has_version };
}

/** The code and runtime of the account's function as committed, read without a lock; undefined if it has none. */
export async function committedCode(em: EntityManager, accountId: string, functionId: string) {
  const { rows } = await executeBound<{ code: string; runtime: Language }>(
    em,
    `select "code", "runtime" from "functions" where "id" = ? and "account_id" = ?`,
    [functionId, accountId],
  );
  return rows[0];
}

/** The SQLSTATE of the function count's refusal (migration 0027). */
const limitReachedState = 'NF409';

/** Names the account's limit of functions for the rest of `tx`: an insert beyond it is refused. */
export async function limitFunctions(tx: EntityManager, limit: number) {
  await executeBound(tx, `select set_config('neoflow.functions_per_account', ?, true)`, [String(limit)]);
}

/** Whether `error` is the count's refusal of a function beyond the account's limit. */
export const isFunctionLimitReached = (error: unknown) => (error as { code?: string }).code === limitReachedState;

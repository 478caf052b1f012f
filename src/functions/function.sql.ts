import type { EntityManager } from '@mikro-orm/postgresql';

/** The hand-written statements of the `functions` table (the entity's own writes go through the ORM). */

/**
 * The per-function lock of storage commits, taken first in their transaction (FOR NO KEY UPDATE:
 * invokes inserting executions, which only share the key, never wait on it; an update or delete of
 * the function does, for one commit).
 */
export async function lockStore(tx: EntityManager, functionId: string) {
  await tx.execute(`select 1 from "functions" where "id" = ? for no key update`, [functionId]);
}

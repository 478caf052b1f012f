import type { EntityManager } from '@mikro-orm/postgresql';

/** The hand-written statements of the `function_versions` table. */

/** The highest version made of the function, plus one. */
export async function nextVersion(em: EntityManager, functionId: string): Promise<number> {
  const [row] = await em.execute<{ next: number }[]>(
    `select coalesce(max("version"), 0) + 1 as "next" from "function_versions" where "function_id" = ?`,
    [functionId],
  );
  return row!.next;
}

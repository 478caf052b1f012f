import type { EntityManager } from '@mikro-orm/postgresql';

/** The hand-written statements of the `secrets` table (the entity's own writes go through the ORM). */

/**
 * Increments the version in one statement rather than reading it first: concurrent updates of
 * one secret queue on the row's lock until the claiming transaction ends, so each gets its own
 * number and none is skipped. Undefined: no such secret.
 */
export async function claimNextVersion(em: EntityManager, secretId: string): Promise<number | undefined> {
  const [row] = await em.execute<{ version: number }[]>(
    `update "secrets" set "version" = "version" + 1 where "id" = ? returning "version"`,
    [secretId],
  );
  return row?.version;
}

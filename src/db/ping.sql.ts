import type { EntityManager } from '@mikro-orm/postgresql';

/** The statement that proves a database answers, and does nothing else. */
export const pingSql = 'select 1';

/** Proves the database answers on one of the ORM's connections. */
export async function ping(em: EntityManager) {
  await em.getConnection().execute(pingSql);
}

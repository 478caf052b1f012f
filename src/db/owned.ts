import type { EntityManager, EntityName, LockMode } from '@mikro-orm/postgresql';
import type { AppError } from '../errors.ts';

/**
 * Loads a resource only if it belongs to the account. Another account's id and a missing id
 * give the same error, so ids reveal nothing across accounts. `lockMode` locks its row until the
 * caller's transaction ends.
 */
export async function findOwned<T extends object>(
  em: EntityManager,
  entity: EntityName<T>,
  id: string,
  accountId: string,
  notFound: () => AppError,
  lockMode?: LockMode,
): Promise<T> {
  const found = await em.findOne(
    entity,
    { id, account: accountId } as never,
    lockMode === undefined ? {} : { lockMode },
  );
  if (!found) throw notFound();
  return found;
}

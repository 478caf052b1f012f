import type { EntityManager, EntityName } from '@mikro-orm/postgresql';
import type { AppError } from '../errors.ts';

/**
 * Loads a resource only if it belongs to the account. Another account's id and a missing id
 * give the same error, so ids reveal nothing across accounts.
 */
export async function findOwned<T extends object>(
  em: EntityManager,
  entity: EntityName<T>,
  id: string,
  accountId: string,
  notFound: () => AppError,
): Promise<T> {
  const found = await em.findOne(entity, { id, account: accountId } as never);
  if (!found) throw notFound();
  return found;
}

import { UniqueConstraintViolationException, type EntityManager } from '@mikro-orm/postgresql';
import { AppError } from '../errors.ts';

/** Flushes `em`; the account's unique name taken already becomes a 409 `conflict` on `name`. */
export async function flushUniqueName(em: EntityManager, conflictMessage: string) {
  try {
    await em.flush();
  } catch (error) {
    if (error instanceof UniqueConstraintViolationException) {
      throw new AppError('conflict', conflictMessage, { field: 'name' });
    }
    throw error;
  }
}

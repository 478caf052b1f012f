import type { EntityManager } from '@mikro-orm/postgresql';
import type { Signer } from './signer.entity.ts';
import { defaultSignerOf, signerById } from './signer.sql.ts';

/**
 * The signer an automation or a run names (`signerId`), or the account's `default` when it names
 * none (an action that sent nothing when it was saved). Null when there is none: the named one
 * deleted, or an account made before signers existed.
 */
export function signerOrDefault(em: EntityManager, accountId: string, signerId: string | null): Promise<Signer | null> {
  return signerId ? signerById(em, signerId) : defaultSignerOf(em, accountId);
}

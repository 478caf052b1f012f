import type { EntityManager } from '@mikro-orm/postgresql';
import { Signer } from './signer.entity.ts';

/**
 * The reads and writes of the `signers` table (migration 0032) that the API and the worker share:
 * a signer by id, an account's default and one an automation names.
 */

/** The name every account's first signer has, and automations that name none sign with. */
export const defaultSignerName = 'default';

/** The signer `signerId`, as the worker opens it to sign; null once deleted. */
export async function signerById(em: EntityManager, signerId: string): Promise<Signer | null> {
  return em.findOne(Signer, { id: signerId });
}

/** The account's `default` signer; null for an account made before signers existed, until its next key. */
export async function defaultSignerOf(em: EntityManager, accountId: string): Promise<Signer | null> {
  return em.findOne(Signer, { account: accountId, name: defaultSignerName });
}

/** The account's signer that `ref` names: its id (`sgn_…`) or its name. */
export async function signerNamed(em: EntityManager, accountId: string, ref: string): Promise<Signer | null> {
  return em.findOne(Signer, { account: accountId, ...(ref.startsWith('sgn_') ? { id: ref } : { name: ref }) });
}

/** The ids of the automations that name the signer, in id order. */
export async function automationsNaming(em: EntityManager, signerId: string): Promise<string[]> {
  const rows = await em.execute<{ id: string }[]>(
    `select "id" from "automations" where "signer_id" = ? order by "id"`,
    [signerId],
  );
  return rows.map((row) => row.id);
}

/**
 * Deletes the signer unless an automation names it, in one statement (so that none can name it
 * between the check and the delete): answers whether it was deleted.
 */
export async function deleteUnnamedSigner(em: EntityManager, signerId: string): Promise<boolean> {
  const { affectedRows } = await em.execute<{ affectedRows: number }>(
    `delete from "signers" s where s."id" = ?
      and not exists (select 1 from "automations" a where a."signer_id" = s."id")`,
    [signerId],
    'run',
  );
  return affectedRows > 0;
}

/** Stores a migrated signer's public key, learnt by opening its seal; a key stored already stays. */
export async function storePublicKey(em: EntityManager, signerId: string, publicKey: string) {
  await em.execute(`update "signers" set "public_key" = ? where "id" = ? and "public_key" is null`, [
    publicKey,
    signerId,
  ]);
}

import type { EntityManager } from '@mikro-orm/postgresql';
import { open, type MasterKeys } from '../crypto/envelope.ts';
import { SecretVersion } from './secret.entity.ts';
import { sealContexts } from '../crypto/seal-contexts.ts';

export interface RevealedSecret {
  name: string;
  value: string;
  version: number;
}

/**
 * The newest value of each named secret of the account; names it lacks are simply absent. The
 * only way values leave the database in clear, for the sandbox to hand to granted functions.
 */
export async function revealSecrets(
  em: EntityManager,
  masters: MasterKeys,
  accountId: string,
  names: readonly string[],
): Promise<RevealedSecret[]> {
  if (names.length === 0) return [];
  const newest = await em.find(
    SecretVersion,
    { secret: { account: accountId, name: { $in: [...names] } } },
    { populate: ['secret'], orderBy: { version: 'desc' } },
  );
  const byName = new Map<string, RevealedSecret>();
  for (const row of newest) {
    if (byName.has(row.secret.name) || row.version !== row.secret.version) continue;
    const value = open(row, sealContexts.secret(row.secret.id, row.version), masters);
    byName.set(row.secret.name, { name: row.secret.name, value, version: row.version });
  }
  return [...byName.values()];
}

import type { MikroORM } from '@mikro-orm/postgresql';
import { randomBytes } from 'node:crypto';
import { createKey, revokeKey } from '../../src/auth/keys.service.ts';
import type { Scope } from '../../src/auth/scopes.ts';

export const uniqueAccountName = (label: string) => `${label}-${randomBytes(4).toString('hex')}`;

/** A key for a fresh (or the named) account, as `neoflow keys create` would make it. */
export async function issueKey(orm: MikroORM, scopes: Scope[] = ['*'], account = uniqueAccountName('acct')) {
  return { ...(await createKey(orm.em.fork(), account, scopes)), account };
}

export async function revoke(orm: MikroORM, keyId: string) {
  await revokeKey(orm.em.fork(), keyId);
}

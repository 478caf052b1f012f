import type { MikroORM } from '@mikro-orm/postgresql';
import { randomBytes } from 'node:crypto';
import { inject } from 'vitest';
import { createKey, revokeKey } from '../../src/auth/keys.service.ts';
import type { Scope } from '../../src/auth/scopes.ts';
import type { MasterKeys } from '../../src/crypto/envelope.ts';
import { testMasterKey } from './temporal.ts';

export const uniqueAccountName = (label: string) => `${label}-${randomBytes(4).toString('hex')}`;

/** The master keys of the test API: what signers and secrets made in tests are sealed with. */
export const testMasters: MasterKeys = { current: testMasterKey, previous: [] };

/**
 * What `neoflow keys …` needs beside a test database: the test master key, and the harness's node
 * as NEO_RPC_URL, so that it never funds from (or needs) a developer's own `.neoflow` dev chain.
 */
export const keysCliEnv = (databaseUrl: string) => ({
  DATABASE_URL: databaseUrl,
  NEOFLOW_MASTER_KEY: testMasterKey.toString('base64'),
  NEO_RPC_URL: inject('neoRpcUrl'),
});

/** A key for a fresh (or the named) account, as `neoflow keys create` would make it. */
export async function issueKey(
  orm: MikroORM,
  scopes: Scope[] = ['*'],
  account = uniqueAccountName('acct'),
  masters = testMasters,
) {
  return { ...(await createKey(orm.em.fork(), masters, account, scopes)), account };
}

export async function revoke(orm: MikroORM, keyId: string) {
  await revokeKey(orm.em.fork(), keyId);
}

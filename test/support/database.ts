import { randomBytes } from 'node:crypto';
import { inject } from 'vitest';
import type { MikroORM } from '@mikro-orm/postgresql';
import { executeOnce } from '../../src/db/execute-once.ts';
import { migrate, openOrm } from '../../src/orm.ts';

export interface TestDatabase {
  url: string;
  orm: MikroORM;
  drop(): Promise<void>;
}

/** A fresh database of its own for one test file, migrated unless told otherwise. */
export async function createTestDatabase({ migrated = true } = {}): Promise<TestDatabase> {
  const adminUrl = inject('adminDatabaseUrl');
  const name = `neoflow_test_${randomBytes(6).toString('hex')}`;
  await executeOnce(adminUrl, `create database "${name}"`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const orm = await openOrm(url.toString());
  if (migrated) await migrate(orm);
  return {
    url: url.toString(),
    orm,
    drop: async () => {
      await orm.close();
      await executeOnce(adminUrl, `drop database if exists "${name}" with (force)`);
    },
  };
}

import { randomBytes } from 'node:crypto';
import { inject } from 'vitest';
import type { MikroORM } from '@mikro-orm/postgresql';
import { executeOnce } from '../../src/db/execute-once.ts';
import { openOrm } from '../../src/orm.ts';
import { databaseUrl } from './template-database.ts';

export interface TestDatabase {
  url: string;
  orm: MikroORM;
  drop(): Promise<void>;
}

/**
 * A fresh database of its own for one test file: migrated (a copy of the run's migrated template,
 * test/setup/services.ts) unless told otherwise.
 */
export async function createTestDatabase({ migrated = true } = {}): Promise<TestDatabase> {
  const adminUrl = inject('adminDatabaseUrl');
  const name = `neoflow_test_${randomBytes(6).toString('hex')}`;
  const template = migrated ? ` template "${inject('templateDatabase')}"` : '';
  await executeOnce(adminUrl, `create database "${name}"${template}`);
  const url = databaseUrl(adminUrl, name);
  const orm = await openOrm(url);
  return {
    url,
    orm,
    drop: async () => {
      await orm.close();
      await executeOnce(adminUrl, `drop database if exists "${name}" with (force)`);
    },
  };
}

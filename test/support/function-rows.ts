import type { MikroORM } from '@mikro-orm/postgresql';
import { FunctionDef } from '../../src/functions/function.entity.ts';

/** A function of the account stored straight in the database, for tests (and benchmarks) of what runs it. */
export async function storeFunction(
  orm: MikroORM,
  accountId: string,
  name: string,
  code = 'module.exports = async () => 1;',
): Promise<FunctionDef> {
  const em = orm.em.fork();
  const fn = em.create(FunctionDef, {
    account: accountId,
    name,
    code,
    description: null,
    runtime: 'node18',
    timeout: 30,
    status: 'active',
    tags: [],
    environment: {},
    secrets: [],
    allowedHosts: [],
  });
  await em.flush();
  return fn;
}

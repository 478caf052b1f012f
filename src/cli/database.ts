import type { MikroORM } from '@mikro-orm/postgresql';
import type { Config } from '../config.ts';
import { openOrm } from '../db/orm.ts';
import { embeddedPostgresUrl } from '../stack/embedded-postgres.ts';
import { UnreachableError } from '../services.factory.ts';

/** DATABASE_URL, or the embedded database of a running `neoflow up`. */
export async function withOrm<T>(config: Config, work: (orm: MikroORM) => Promise<T>): Promise<T> {
  const url = config.postgres.url ?? embeddedPostgresUrl(config.postgres.embeddedPort);
  let orm: MikroORM;
  try {
    orm = await openOrm(url);
  } catch (error) {
    const variable = config.postgres.url
      ? 'DATABASE_URL'
      : 'DATABASE_URL (unset: the embedded database of `neoflow up`)';
    throw new UnreachableError(variable, error);
  }
  try {
    return await work(orm);
  } finally {
    await orm.close();
  }
}

import type { MikroORM } from '@mikro-orm/postgresql';
import type { Config } from '../config.ts';
import { withOrm } from '../orm.ts';
import { embeddedPostgresUrl } from '../stack/embedded-postgres.ts';

/** CLI commands work on DATABASE_URL, or else on the embedded database of a running `neoflow up`. */
export function withCliOrm<T>(config: Config, work: (orm: MikroORM) => Promise<T>): Promise<T> {
  if (config.postgres.url) return withOrm(config.postgres.url, 'DATABASE_URL', work);
  const url = embeddedPostgresUrl(config.postgres.embeddedPort);
  return withOrm(url, 'DATABASE_URL (unset, so the embedded database of `neoflow up`)', work);
}

import { MikroORM, type Options } from '@mikro-orm/postgresql';
import { Migrator } from '@mikro-orm/migrations';
import { entities } from './entities.ts';
import { migrations } from './migrations/index.ts';
import { lendMasterKeys } from './migration-keys.ts';
import type { MasterKeys } from '../secrets/envelope.ts';

export function ormOptions(databaseUrl: string): Options {
  return {
    clientUrl: databaseUrl,
    entities,
    extensions: [Migrator],
    migrations: { migrationsList: migrations, transactional: true, allOrNothing: true, silent: true, snapshot: false },
    // Entities are defined in code; nothing to discover or cache on disk.
    discovery: { warnWhenNoEntities: true },
    metadataCache: { enabled: false },
    pool: { min: 0, max: 10 },
  };
}

/** Opens the ORM and proves the database answers (MikroORM connects lazily otherwise). */
export async function openOrm(databaseUrl: string): Promise<MikroORM> {
  const orm = await MikroORM.init(ormOptions(databaseUrl));
  try {
    await orm.em.getConnection().execute('select 1');
  } catch (error) {
    await orm.close(true);
    throw error;
  }
  return orm;
}

/**
 * Applies pending migrations; returns the names of those it ran. A migration that seals values
 * already stored (0011) needs the master keys, and fails without them only if there is any.
 */
export async function migrate(orm: MikroORM, masterKeys?: MasterKeys): Promise<string[]> {
  if (masterKeys) lendMasterKeys(orm.config, masterKeys);
  const applied = await orm.migrator.up();
  return applied.map((migration) => migration.name);
}

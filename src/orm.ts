/**
 * The ORM's root (the MikroORM guide's `db.ts`): every entity, the options, opening, migrating.
 */
import { MikroORM, type Options } from '@mikro-orm/postgresql';
import { Migrator } from '@mikro-orm/migrations';
import { Account } from './auth/account.entity.ts';
import { ApiKey } from './auth/api-key.entity.ts';
import { Automation } from './automations/model/automation.entity.ts';
import { AutomationCredential } from './automations/credentials/credential.entity.ts';
import { BlockCursor } from './automations/blocks/block-cursor.entity.ts';
import { AutomationRun } from './automations/model/run.entity.ts';
import { Signer } from './signers/signer.entity.ts';
import { Execution, ExecutionResult } from './functions/execution.entity.ts';
import { FunctionDef } from './functions/function.entity.ts';
import { FunctionVersion } from './functions/function-version.entity.ts';
import { Notification } from './automations/notifications/notification.entity.ts';
import { Secret, SecretVersion } from './secrets/secret.entity.ts';
import { AuditEvent } from './audit/audit-event.entity.ts';
import { reachable } from './reachable.ts';
import { migrations, migrationsWith } from './db/migrations/index.ts';
import { ping } from './db/ping.sql.ts';
import type { MasterKeys } from './crypto/envelope.ts';

/** Every entity the ORM knows; each area adds its own here. */
export const entities = [
  Account,
  ApiKey,
  Signer,
  Secret,
  SecretVersion,
  FunctionDef,
  FunctionVersion,
  Execution,
  ExecutionResult,
  Automation,
  AutomationCredential,
  AutomationRun,
  BlockCursor,
  Notification,
  AuditEvent,
];

/** Connections one process holds at most. */
const poolSize = 10;

/**
 * `idle-closed`: a connection idle for 10 s is closed (a command, a test). `kept`: a service's
 * pool keeps its connections once opened, as a fixed-size pool: a new one costs PostgreSQL a
 * backend's start (a fork, its catalog caches filled again) just when a burst asks for it, and
 * every request waiting for a connection meanwhile waits for that (docs/performance.md, "Inbound
 * webhooks under a flood").
 */
export type PoolUse = 'idle-closed' | 'kept';

export function ormOptions(databaseUrl: string, pool: PoolUse = 'idle-closed'): Options {
  return {
    clientUrl: databaseUrl,
    entities,
    extensions: [Migrator],
    migrations: { migrationsList: migrations, transactional: true, allOrNothing: true, silent: true, snapshot: false },
    // Entities are defined in code; nothing to discover or cache on disk.
    discovery: { warnWhenNoEntities: true },
    metadataCache: { enabled: false },
    pool: { min: pool === 'kept' ? poolSize : 0, max: poolSize },
  };
}

/** Opens the ORM and proves the database answers (MikroORM connects lazily otherwise). */
export async function openOrm(databaseUrl: string, pool?: PoolUse): Promise<MikroORM> {
  const orm = await MikroORM.init(ormOptions(databaseUrl, pool));
  try {
    await ping(orm.em);
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
  // The migrator reads its list at each run: this run's are given this run's keys.
  orm.config.get('migrations').migrationsList = migrationsWith(masterKeys);
  const applied = await orm.migrator.up();
  return applied.map((migration) => migration.name);
}

/** Opens the ORM on `url` (failing with a message naming `variable`), runs `work`, closes it. */
export async function withOrm<T>(url: string, variable: string, work: (orm: MikroORM) => Promise<T>): Promise<T> {
  const orm = await reachable(variable, () => openOrm(url));
  try {
    return await work(orm);
  } finally {
    await orm.close();
  }
}

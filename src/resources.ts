import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { Client } from '@temporalio/client';
import type { NativeConnection } from '@temporalio/worker';
import { createNeoRpc, type NeoRpc } from './chain/rpc.ts';
import { requireSetting, type Config } from './config.ts';
import { openOrm } from './db.ts';
import type { LocalRuns } from './functions/local-runs.ts';
import type { Logger } from './log.ts';
import { reachable } from './reachable.ts';
import type { MasterKeys } from './crypto/envelope.ts';
import { masterKeysOf, payloadKeysOf, type PayloadKeys } from './crypto/master-keys.ts';
import { connectTemporal } from './temporal/connect.ts';

/**
 * What a process opens (PostgreSQL, Neo RPC, Temporal and the keys) beside its config and log: what
 * its worker runs over and what the API's areas share. Opened once at start-up; the process that
 * opened them closes them.
 */
export interface Resources {
  config: Config;
  log: Logger;
  orm: MikroORM;
  /** The request's EntityManager (MikroORM's RequestContext resolves the global one per request). */
  em: () => EntityManager;
  neo: NeoRpc;
  /** Seal and open secret values (NEOFLOW_MASTER_KEY, plus previous keys during a rotation). */
  masterKeys: MasterKeys;
  /** Open and seal Temporal payloads (NEOFLOW_PAYLOAD_KEY, plus previous keys during a rotation). */
  payloadKeys: PayloadKeys;
  /** One native connection for the process's worker and its client alike. */
  temporal: { connection: NativeConnection; client: Client };
  /**
   * Set where the process's worker runs the runs its API starts (`neoflow api`), both holding this
   * instance: workflows are started eagerly, and their ends handed over in process.
   */
  localRuns: LocalRuns | undefined;
}

/**
 * Opens the resources, resolving once the settings the process needs; each failure names the
 * variable that is unset or points at a service out of reach.
 */
export async function openResources(config: Config, log: Logger, localRuns?: LocalRuns): Promise<Resources> {
  const databaseUrl = requireSetting(config.postgres.url, 'DATABASE_URL');
  const address = requireSetting(config.temporal.address, 'TEMPORAL_ADDRESS');
  const neo = createNeoRpc(requireSetting(config.neo.rpcUrl, 'NEO_RPC_URL'));
  const payloadKeys = payloadKeysOf(config);
  const masterKeys = masterKeysOf(config);
  const orm = await reachable('DATABASE_URL', () => openOrm(databaseUrl));
  try {
    const target = {
      address,
      namespace: config.temporal.namespace,
      payloadKey: payloadKeys.current,
      previousPayloadKeys: payloadKeys.previous,
      security: config.temporal.security,
    };
    const temporal = await reachable('TEMPORAL_ADDRESS', () => connectTemporal(target, 'shared-with-workers'));
    return { config, log, orm, em: () => orm.em, neo, masterKeys, payloadKeys, temporal, localRuns };
  } catch (error) {
    await orm.close();
    throw error;
  }
}

/** Closes what openResources opened, once nothing runs over it. */
export async function closeResources({ temporal, orm }: Resources): Promise<void> {
  await temporal.connection.close();
  await orm.close();
}

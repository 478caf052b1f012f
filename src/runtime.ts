import type { MikroORM } from '@mikro-orm/postgresql';
import type { Client } from '@temporalio/client';
import type { NativeConnection } from '@temporalio/worker';
import { createNeoRpc, type NeoRpc } from './chain/rpc.ts';
import { requireSetting, type Config } from './config.ts';
import { openOrm } from './db.ts';
import { reachable } from './reachable.ts';
import type { MasterKeys } from './crypto/envelope.ts';
import { masterKeysOf, payloadKeysOf, type PayloadKeys } from './crypto/master-keys.ts';
import { connectTemporal } from './temporal/connect.ts';

/** What both the API and the worker process open: PostgreSQL, Neo RPC, Temporal and the keys. */
export interface Runtime {
  orm: MikroORM;
  neo: NeoRpc;
  masterKeys: MasterKeys;
  payloadKeys: PayloadKeys;
  /** One native connection for the process's worker and its client alike. */
  temporal: { connection: NativeConnection; client: Client };
  close(): Promise<void>;
}

/**
 * Opens the runtime, resolving once the settings the process needs; each failure names the variable
 * that is unset or points at a service out of reach.
 */
export async function openRuntime(config: Config): Promise<Runtime> {
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
    const close = async () => {
      await temporal.connection.close();
      await orm.close();
    };
    return { orm, neo, masterKeys, payloadKeys, temporal, close };
  } catch (error) {
    await orm.close();
    throw error;
  }
}

import type { Config } from './config.ts';
import type { Logger } from './log.ts';
import { openOrm } from './db/orm.ts';
import { createNeoRpc } from './chain/rpc.ts';
import { connectTemporal } from './temporal/connect.ts';
import { requireSetting } from './config.ts';
import type { Services } from './services.ts';
import { reachable } from './reachable.ts';
import { masterKeysOf } from './secrets/master-keys.ts';

/** Opens the connections the API needs; each failure names the variable that points at it. */
export async function openServices(config: Config, log: Logger): Promise<Services> {
  const databaseUrl = requireSetting(config.postgres.url, 'DATABASE_URL');
  const temporalAddress = requireSetting(config.temporal.address, 'TEMPORAL_ADDRESS');
  const neoUrl = requireSetting(config.neo.rpcUrl, 'NEO_RPC_URL');
  const payloadKey = requireSetting(config.secrets.payloadKey, 'NEOFLOW_PAYLOAD_KEY');
  const masterKeys = masterKeysOf(config);
  const orm = await reachable('DATABASE_URL', () => openOrm(databaseUrl));
  try {
    const temporal = await reachable('TEMPORAL_ADDRESS', () =>
      connectTemporal({ address: temporalAddress, namespace: config.temporal.namespace, payloadKey }),
    );
    return { config, log, orm, em: () => orm.em, temporal, neo: createNeoRpc(neoUrl), masterKeys };
  } catch (error) {
    await orm.close();
    throw error;
  }
}

export async function closeServices(services: Services) {
  await services.temporal.connection.close();
  await services.orm.close();
}

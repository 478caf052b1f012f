import { openNetworks } from './chain/nodes/networks.ts';
import { requireSetting, type Config } from './config.ts';
import { openOrm } from './orm.ts';
import type { Logger } from './log.ts';
import { reachable } from './reachable.ts';
import { masterKeysOf, payloadKeysOf } from './crypto/master-keys.ts';
import type { Resources } from './resources.ts';
import { connectTemporal } from './temporal/connect.ts';

/**
 * Opens the resources, resolving once the settings the process needs; each failure names the
 * variable that is unset or points at a service out of reach.
 */
export async function openResources(config: Config, log: Logger): Promise<Resources> {
  const databaseUrl = requireSetting(config.postgres.url, 'DATABASE_URL');
  const address = requireSetting(config.temporal.address, 'TEMPORAL_ADDRESS');
  const networkSettings = requireSetting(config.neo.networks, 'NEO_RPC_URL');
  const payloadKeys = payloadKeysOf(config);
  const masterKeys = masterKeysOf(config);
  const orm = await reachable('DATABASE_URL', () => openOrm(databaseUrl, 'kept'));
  // Nodes out of reach are probed again later: a node down at start stops nothing else.
  const networks = await openNetworks(networkSettings, { log, agreement: config.neo.blockAgreement });
  try {
    const target = {
      address,
      namespace: config.temporal.namespace,
      payloadKey: payloadKeys.current,
      previousPayloadKeys: payloadKeys.previous,
      security: config.temporal.security,
    };
    const temporal = await reachable('TEMPORAL_ADDRESS', () => connectTemporal(target, 'shared-with-workers'));
    return { config, log, orm, em: () => orm.em, neo: networks.first, networks, masterKeys, payloadKeys, temporal };
  } catch (error) {
    networks.close();
    await orm.close();
    throw error;
  }
}

/** Closes what openResources opened, once nothing runs over it. */
export async function closeResources({ temporal, orm, networks }: Resources): Promise<void> {
  networks.close();
  await temporal.connection.close();
  await orm.close();
}

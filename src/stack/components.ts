import { join } from 'node:path';
import { requireSetting, type Config } from '../config.ts';
import { createNeoRpc } from '../chain/rpc.ts';
import { executeOnce } from '../db/execute-once.ts';
import { reachable } from '../reachable.ts';
import { webUiCodecPath } from '../codec/codec.auth.ts';
import { pingTemporal } from './temporal-ping.ts';
import { ensureGoProgram, neoGo, temporalCli, type Progress } from './binaries.ts';
import { startEmbeddedPostgres } from './embedded-postgres.ts';
import { pingSql } from '../db/ping.sql.ts';
import { startNeoDevnet } from './neo-devnet.ts';
import { startTemporalDev } from './temporal-dev.ts';

/** One backing service as `neoflow up` reports it: where it is and how to stop it (if ours). */
export interface Component {
  name: 'postgres' | 'temporal' | 'neo';
  /** The URL or address the API and worker are given. */
  address: string;
  description: string;
  stop(): Promise<void>;
}

/** A service someone else runs: proved reachable, never stopped by us. */
async function external(name: Component['name'], address: string, variable: string, probe: () => Promise<unknown>) {
  await reachable(variable, probe);
  const component: Component = {
    name,
    address,
    description: `external, from ${variable}`,
    stop: async () => undefined,
  };
  return component;
}

export async function postgresComponent(config: Config): Promise<Component> {
  const url = config.postgres.url;
  if (url) return external('postgres', url, 'DATABASE_URL', () => executeOnce(url, pingSql));
  const dataDir = join(config.dataDir, 'postgres');
  const db = await startEmbeddedPostgres(dataDir, config.postgres.embeddedPort, join(config.dataDir, 'postgres.log'));
  const description = `embedded, 127.0.0.1:${config.postgres.embeddedPort}, data in ${dataDir}`;
  return { name: 'postgres', address: db.url, description, stop: () => db.stop() };
}

export async function temporalComponent(config: Config, progress: Progress): Promise<Component> {
  const address = config.temporal.address;
  if (address) return external('temporal', address, 'TEMPORAL_ADDRESS', () => pingTemporal(address));
  const operatorToken = requireSetting(config.secrets.operatorToken, 'NEOFLOW_OPERATOR_TOKEN');
  const temporalPath = await ensureGoProgram(temporalCli, config.binDir, progress);
  const server = await startTemporalDev({
    temporalPath,
    port: config.temporal.devPort,
    uiPort: config.temporal.uiPort,
    uiCodecEndpoint: `http://${config.api.host}:${config.api.port}${webUiCodecPath(operatorToken)}`,
    dbFile: join(config.dataDir, 'temporal.db'),
    logFile: join(config.dataDir, 'temporal.log'),
    namespace: config.temporal.namespace,
  });
  const description = `dev server ${server.address}, Web UI ${server.uiUrl}`;
  return { name: 'temporal', address: server.address, description, stop: () => server.stop() };
}

export async function neoComponent(config: Config, progress: Progress): Promise<Component> {
  const rpcUrl = config.neo.rpcUrl;
  if (rpcUrl)
    return external('neo', rpcUrl, 'NEO_RPC_URL', () => createNeoRpc(rpcUrl, { timeoutMs: 5000 }).getBlockCount());
  const neoGoPath = await ensureGoProgram(neoGo, config.binDir, progress);
  const devnet = await startNeoDevnet({
    neoGoPath,
    dataDir: join(config.dataDir, 'neo'),
    rpcPort: config.neo.devRpcPort,
    blockTimeMs: 1000,
    storage: 'leveldb',
  });
  const description = `neo-go private net ${devnet.rpcUrl}, 1 s blocks, funded dev wallet ${devnet.wallet.address}`;
  return { name: 'neo', address: devnet.rpcUrl, description, stop: () => devnet.stop() };
}

import type { Config } from '../config.ts';
import { assertPortFree } from '../net/ports.ts';

/** Every port `neoflow up` will listen on, checked before anything starts. */
export async function assertPortsFree(config: Config) {
  const ports: [number, string][] = [[config.api.port, 'NEOFLOW_API_PORT']];
  if (!config.postgres.url) ports.push([config.postgres.embeddedPort, 'NEOFLOW_EMBEDDED_PG_PORT']);
  if (!config.temporal.address) {
    ports.push(
      [config.temporal.devPort, 'NEOFLOW_TEMPORAL_PORT'],
      [config.temporal.uiPort, 'NEOFLOW_TEMPORAL_UI_PORT'],
    );
  }
  if (!config.neo.rpcUrl) ports.push([config.neo.devRpcPort, 'NEOFLOW_NEO_RPC_PORT']);
  for (const [port, variable] of ports) await assertPortFree(port, variable);
}

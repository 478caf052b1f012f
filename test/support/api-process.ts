import { inject } from 'vitest';
import { freePort } from '../../src/stack/ports.ts';
import { waitFor } from '../../src/stack/process.ts';
import { spawnNeoflow } from './neoflow-command.ts';
import { testSecretsEnv } from './temporal.ts';

export interface ApiProcess {
  url: string;
  stop(): Promise<void>;
}

/** `neoflow api` as its own process over `databaseUrl` and the shared services, once healthy. */
export async function startApiProcess(databaseUrl: string, env: Record<string, string> = {}): Promise<ApiProcess> {
  const port = await freePort();
  const api = spawnNeoflow(
    'api',
    {
      NEOFLOW_LOG_LEVEL: 'warn',
      NEOFLOW_API_PORT: String(port),
      DATABASE_URL: databaseUrl,
      TEMPORAL_ADDRESS: inject('temporalAddress'),
      NEO_RPC_URL: inject('neoRpcUrl'),
      ...testSecretsEnv,
      ...env,
    },
    'inherit',
  );
  const url = `http://127.0.0.1:${port}`;
  await waitFor('neoflow api', async () => ((await fetch(`${url}/v1/health`)).ok ? true : undefined), {
    timeoutMs: 30_000,
    aborted: api.exited,
  });
  return { url, stop: () => api.stop() };
}

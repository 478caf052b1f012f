import { freePort } from '../../src/net/ports.ts';
import { waitFor, type ManagedProcess } from '../../src/stack/process.ts';
import { spawnNeoflow } from './neoflow-command.ts';
import { testWorkerEnv } from './temporal.ts';

export interface ApiProcess {
  url: string;
  process: ManagedProcess;
  stop(): Promise<void>;
}

/** `neoflow api` as its own process over `databaseUrl` and the shared services, once healthy. */
export async function startApiProcess(databaseUrl: string, env: Record<string, string> = {}): Promise<ApiProcess> {
  const port = await freePort();
  const api = spawnNeoflow(
    'api',
    testWorkerEnv(databaseUrl, { NEOFLOW_LOG_LEVEL: 'warn', NEOFLOW_API_PORT: String(port), ...env }),
    'inherit',
  );
  const url = `http://127.0.0.1:${port}`;
  // The first start bundles the workflows of its own worker (cached in its data dir): be generous.
  await waitFor('neoflow api', async () => ((await fetch(`${url}/v1/health`)).ok ? true : undefined), {
    timeoutMs: 90_000,
    aborted: api.exited,
  });
  return { url, process: api, stop: () => api.stop() };
}

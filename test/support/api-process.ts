import { freePort } from '../../src/stack/ports.ts';
import { waitFor } from '../../src/stack/process.ts';
import { spawnNeoflow } from './neoflow-command.ts';
import { testWorkerEnv } from './temporal.ts';

export interface ApiProcess {
  url: string;
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
  await waitFor('neoflow api', async () => ((await fetch(`${url}/v1/health`)).ok ? true : undefined), {
    timeoutMs: 30_000,
    aborted: api.exited,
  });
  return { url, stop: () => api.stop() };
}

import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { freePort } from '../../src/stack/ports.ts';
import { startNeoflowUp, type UpProcess } from '../support/up.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    stack: { apiUrl: string; uiUrl: string; env: Record<string, string> };
  }
}

/**
 * The e2e tests run against `neoflow up` exactly as a user starts it, fully embedded, on free
 * ports and in a throw-away data directory.
 */
export default async function setup(project: TestProject) {
  const dataDir = await scratchDataDir('neoflow-e2e-');
  const env = await stackEnv(dataDir);
  let up: UpProcess | undefined;
  try {
    up = await startNeoflowUp(env);
  } catch (error) {
    await rm(dataDir, { recursive: true, force: true });
    throw error;
  }
  project.provide('stack', {
    apiUrl: `http://127.0.0.1:${env.NEOFLOW_API_PORT}`,
    uiUrl: `http://127.0.0.1:${env.NEOFLOW_TEMPORAL_UI_PORT}`,
    env,
  });
  return async () => {
    await up.stop();
    await rm(dataDir, { recursive: true, force: true });
  };
}

/** A throw-away data directory the embedded PostgreSQL (run as `postgres` under root) can enter. */
export async function scratchDataDir(prefix: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  await chmod(dir, 0o755);
  return dir;
}

export async function stackEnv(dataDir: string): Promise<Record<string, string>> {
  return {
    // Not yet there, like the .neoflow of a fresh clone: up must create it usable for all.
    NEOFLOW_DATA_DIR: join(dataDir, '.neoflow'),
    NEOFLOW_API_PORT: String(await freePort()),
    NEOFLOW_EMBEDDED_PG_PORT: String(await freePort()),
    NEOFLOW_TEMPORAL_PORT: String(await freePort()),
    NEOFLOW_TEMPORAL_UI_PORT: String(await freePort()),
    NEOFLOW_NEO_RPC_PORT: String(await freePort()),
  };
}

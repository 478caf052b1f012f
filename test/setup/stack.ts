import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { loadConfig } from '../../src/config.ts';
import { ensureGoProgram, neoGo, temporalCli } from '../../src/stack/binaries.ts';
import { freePort } from '../../src/net/ports.ts';
import { scratchDataDir } from '../support/scratch-services.ts';
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
  await buildGoPrograms();
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

/**
 * Builds the pinned Go programs first when a machine lacks them (minutes, with progress), so the
 * time `neoflow up` is given to start is spent starting, not compiling.
 */
async function buildGoPrograms() {
  const { binDir } = loadConfig();
  const progress = (line: string) => process.stdout.write(`[setup] ${line}\n`);
  await Promise.all([ensureGoProgram(temporalCli, binDir, progress), ensureGoProgram(neoGo, binDir, progress)]);
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
    // The e2e price source is served on loopback, which tenants' requests cannot reach by default.
    NEOFLOW_EGRESS_ALLOW: '127.0.0.1',
    // Schedules firing and prices read every second, under the 10 s allowed by default.
    NEOFLOW_SHORTEST_SCHEDULE_SECONDS: '1',
    NEOFLOW_SHORTEST_POLL_SECONDS: '1',
  };
}

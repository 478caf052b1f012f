import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { loadConfig } from '../../src/config.ts';
import { freePort } from '../../src/net/ports.ts';
import { ensureGoProgram, neoGo } from '../../src/stack/binaries.ts';
import { startEmbeddedPostgres } from '../../src/stack/embedded-postgres.ts';
import { startNeoDevnet } from '../../src/stack/neo-devnet.ts';
import { scratchDataDir } from '../support/scratch-services.ts';

const progress = (line: string) => process.stdout.write(`[cluster setup] ${line}\n`);

/**
 * What the cluster test does not start itself: PostgreSQL (DATABASE_URL if set, else embedded) and
 * a neo-go node. Temporal is the test's own production server on that PostgreSQL.
 */
export default async function setup(project: TestProject) {
  const config = loadConfig();
  const scratch = await scratchDataDir('neoflow-cluster-');
  const stops: (() => Promise<void>)[] = [];
  const stop = async () => {
    await Promise.allSettled(stops.map((stopOne) => stopOne()));
    await rm(scratch, { recursive: true, force: true });
  };
  try {
    const neoGoPath = await ensureGoProgram(neoGo, config.binDir, progress);
    const postgresUrl =
      config.postgres.url ??
      (await (async () => {
        const embedded = await startEmbeddedPostgres(join(scratch, 'pg'), await freePort(), join(scratch, 'pg.log'));
        stops.push(() => embedded.stop());
        return embedded.url;
      })());
    const neo = await startNeoDevnet({
      neoGoPath,
      dataDir: join(scratch, 'neo'),
      rpcPort: await freePort(),
      storage: 'inmemory',
    });
    stops.push(() => neo.stop());
    project.provide('adminDatabaseUrl', postgresUrl);
    project.provide('neoRpcUrl', neo.rpcUrl);
    project.provide('devWallet', neo.wallet);
  } catch (error) {
    await stop();
    throw error;
  }
  return stop;
}

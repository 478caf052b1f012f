import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { loadConfig } from '../../src/config.ts';
import { ensureGoProgram, neoGo, temporalCli } from '../../src/stack/binaries.ts';
import { startEmbeddedPostgres } from '../../src/stack/embedded-postgres.ts';
import { startNeoDevnet } from '../../src/stack/neo-devnet.ts';
import { freePort } from '../../src/stack/ports.ts';
import { startTemporalDev } from '../../src/stack/temporal-dev.ts';
import type { DevWallet } from '../../src/stack/neo-devnet.ts';
import { scratchDataDir } from './stack.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** A database URL whose user may create databases (one per test file). */
    adminDatabaseUrl: string;
    temporalAddress: string;
    neoRpcUrl: string;
    devWallet: DevWallet;
    neoGoPath: string;
  }
}

const progress = (line: string) => process.stdout.write(`[setup] ${line}\n`);

/**
 * Real PostgreSQL, Temporal and neo-go for the integration tests: reused from DATABASE_URL,
 * TEMPORAL_ADDRESS and NEO_RPC_URL when set, else started here. Any failure fails the run.
 */
export default async function setup(project: TestProject) {
  const config = loadConfig();
  const scratch = await scratchDataDir('neoflow-it-');
  const stops: (() => Promise<void>)[] = [];
  const teardown = async () => {
    await Promise.allSettled(stops.map((stop) => stop()));
    await rm(scratch, { recursive: true, force: true });
  };
  const tracked = async <T extends object>(start: () => Promise<T>) => {
    const service = await start();
    if ('stop' in service) stops.push(service.stop as () => Promise<void>);
    return service;
  };
  const [temporalPath, neoGoPath] = await Promise.all([
    ensureGoProgram(temporalCli, config.binDir, progress),
    ensureGoProgram(neoGo, config.binDir, progress),
  ]);
  const starting = [
    tracked(async () =>
      config.postgres.url
        ? { url: config.postgres.url }
        : startEmbeddedPostgres(join(scratch, 'pg'), await freePort(), join(scratch, 'postgres.log')),
    ),
    tracked(async () =>
      config.temporal.address
        ? { address: config.temporal.address }
        : startTemporalDev({
            temporalPath,
            port: await freePort(),
            uiPort: undefined,
            uiCodecEndpoint: undefined,
            dbFile: undefined,
            logFile: join(scratch, 'temporal.log'),
            namespace: config.temporal.namespace,
          }),
    ),
    tracked(async () =>
      startNeoDevnet({ neoGoPath, dataDir: join(scratch, 'neo'), rpcPort: await freePort(), storage: 'inmemory' }),
    ),
  ] as const;
  const failed = (await Promise.allSettled(starting)).find((outcome) => outcome.status === 'rejected');
  if (failed) {
    await teardown();
    throw failed.reason;
  }
  const [postgres, temporal, neo] = await Promise.all(starting);
  project.provide('adminDatabaseUrl', postgres.url);
  project.provide('temporalAddress', temporal.address);
  project.provide('neoRpcUrl', neo.rpcUrl);
  project.provide('devWallet', neo.wallet);
  project.provide('neoGoPath', neoGoPath);
  return teardown;
}

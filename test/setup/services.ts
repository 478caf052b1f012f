import { rm } from 'node:fs/promises';
import type { ProvidedContext } from 'vitest';
import type { TestProject } from 'vitest/node';
import { loadConfig } from '../../src/config.ts';
import { ensureGoProgram, localKms } from '../../src/stack/binaries.ts';
import type { DevWallet } from '../../src/stack/neo-devnet.ts';
import { scratchDataDir, startScratchServices } from '../support/scratch-services.ts';
import { createTemplateDatabase } from '../support/template-database.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** A database URL whose user may create databases (one per test file). */
    adminDatabaseUrl: string;
    /** The migrated database each test file's own is copied from (test/support/database.ts). */
    templateDatabase: string;
    temporalAddress: string;
    neoRpcUrl: string;
    devWallet: DevWallet;
    neoGoPath: string;
    /** local-kms, the AWS KMS the custody tests sign with (test/support/local-kms.ts). */
    localKmsPath: string;
  }
}

const progress = (line: string) => process.stdout.write(`[setup] ${line}\n`);

/** What this setup provides: the keys declared above. */
type Provided = Pick<
  ProvidedContext,
  'adminDatabaseUrl' | 'templateDatabase' | 'temporalAddress' | 'neoRpcUrl' | 'devWallet' | 'neoGoPath' | 'localKmsPath'
>;

interface Started {
  provided: Provided;
  stop(): Promise<void>;
}

/**
 * The services of both integration projects (vitest.config.ts: the files run two at a time, and
 * those run alone), started once: vitest calls each project's global setup one after the other in
 * its own main process, so the first call starts them, the next ones share them, and the last
 * teardown stops them.
 */
const shared = globalThis as typeof globalThis & {
  neoflowIntegrationServices?: { started: Promise<Started>; users: number };
};

/**
 * Real PostgreSQL, Temporal and neo-go for the integration tests: reused from DATABASE_URL,
 * TEMPORAL_ADDRESS and NEO_RPC_URL when set, else started here. Any failure fails the run.
 */
export default async function setup(project: TestProject) {
  const services = (shared.neoflowIntegrationServices ??= { started: startServices(), users: 0 });
  services.users += 1;
  const { provided, stop } = await services.started;
  for (const key of Object.keys(provided) as (keyof Provided)[]) project.provide(key, provided[key]);
  return async () => {
    services.users -= 1;
    if (services.users > 0) return;
    delete shared.neoflowIntegrationServices;
    await stop();
  };
}

async function startServices(): Promise<Started> {
  const config = loadConfig();
  const scratch = await scratchDataDir('neoflow-it-');
  const reuse = { postgresUrl: config.postgres.url, temporalAddress: config.temporal.address };
  // Built beside the services starting (a fresh clone builds every Go program here, at once).
  const [started, built] = await Promise.allSettled([
    startScratchServices(scratch, progress, reuse),
    ensureGoProgram(localKms, config.binDir, progress),
  ]);
  if (started.status === 'rejected' || built.status === 'rejected') {
    if (started.status === 'fulfilled') await started.value.stop();
    await rm(scratch, { recursive: true, force: true });
    throw started.status === 'rejected' ? started.reason : (built as PromiseRejectedResult).reason;
  }
  const services = started.value;
  const template = await createTemplateDatabase(services.postgresUrl).catch(async (error: unknown) => {
    await services.stop();
    await rm(scratch, { recursive: true, force: true });
    throw error;
  });
  return {
    provided: {
      adminDatabaseUrl: services.postgresUrl,
      templateDatabase: template.name,
      temporalAddress: services.temporalAddress,
      neoRpcUrl: services.neoRpcUrl,
      devWallet: services.devWallet,
      neoGoPath: services.neoGoPath,
      localKmsPath: built.value,
    },
    stop: async () => {
      await template.drop();
      await services.stop();
      await rm(scratch, { recursive: true, force: true });
    },
  };
}

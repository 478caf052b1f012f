import { rm } from 'node:fs/promises';
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

/**
 * Real PostgreSQL, Temporal and neo-go for the integration tests: reused from DATABASE_URL,
 * TEMPORAL_ADDRESS and NEO_RPC_URL when set, else started here. Any failure fails the run.
 */
export default async function setup(project: TestProject) {
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
  project.provide('adminDatabaseUrl', services.postgresUrl);
  project.provide('templateDatabase', template.name);
  project.provide('temporalAddress', services.temporalAddress);
  project.provide('neoRpcUrl', services.neoRpcUrl);
  project.provide('devWallet', services.devWallet);
  project.provide('neoGoPath', services.neoGoPath);
  project.provide('localKmsPath', built.value);
  return async () => {
    await template.drop();
    await services.stop();
    await rm(scratch, { recursive: true, force: true });
  };
}

import { rm } from 'node:fs/promises';
import type { TestProject } from 'vitest/node';
import { loadConfig } from '../../src/config.ts';
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
  const services = await startScratchServices(scratch, progress, reuse).catch(async (error: unknown) => {
    await rm(scratch, { recursive: true, force: true });
    throw error;
  });
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
  return async () => {
    await template.drop();
    await services.stop();
    await rm(scratch, { recursive: true, force: true });
  };
}

import { mkdir, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { loadConfig } from '../../src/config.ts';

/**
 * Makes `dataDir` (a worker's own, new or kept across its restarts) and links its `cache` to the
 * one every API under test already uses, the default data directory's: the workflow bundle is
 * built once per change of the workflows (worker/bundle.ts), not once per worker a test starts
 * (about 45 a run, each some 1.6 s of CPU in webpack). The bundle is written whole and renamed
 * into place, so workers sharing the cache never read half of one.
 */
export async function withSharedBundleCache(dataDir: string): Promise<string> {
  const shared = join(loadConfig({}).dataDir, 'cache');
  await mkdir(shared, { recursive: true });
  await mkdir(dataDir, { recursive: true });
  await symlink(shared, join(dataDir, 'cache'), 'dir').catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'EEXIST') throw error;
  });
  return dataDir;
}

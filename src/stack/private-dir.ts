import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';

/**
 * Creates `dir` readable by its owner only. Its parents get the usual mode: a recursive mkdir
 * with 0700 would lock every new parent too, and the embedded PostgreSQL, which runs as its own
 * user, must still pass through the data directory.
 */
export async function makePrivateDir(dir: string) {
  await mkdir(dirname(dir), { recursive: true });
  await mkdir(dir, { recursive: true, mode: 0o700 });
}

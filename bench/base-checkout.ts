import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, realpath, rename, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { Progress } from './measure.ts';

const run = promisify(execFile);
const root = fileURLToPath(new URL('..', import.meta.url));

/**
 * The code of `commit` in a directory of its own, for a benchmark that runs it alternated with
 * this checkout's in one run: the commit's files as `git archive` writes them (nothing of this
 * repository's git state changes), and this checkout's node_modules linked in (a commit whose
 * packages differ from these is not comparable so). Made once per commit in the temporary
 * directory; returns its root.
 */
export async function baseCheckout(commit: string, progress: Progress): Promise<string> {
  const { stdout } = await run('git', ['rev-parse', '--verify', `${commit}^{commit}`], { cwd: root });
  const full = stdout.trim();
  const dir = join(tmpdir(), `neoflow-base-${full.slice(0, 12)}`);
  if (existsSync(join(dir, 'bin', 'neoflow.js'))) return dir;
  const partial = `${dir}.partial-${process.pid}`;
  await rm(partial, { recursive: true, force: true });
  await mkdir(partial, { recursive: true });
  await run('sh', ['-c', `git archive ${full} | tar -x -C '${partial}'`], { cwd: root });
  await symlink(await realpath(join(root, 'node_modules')), join(partial, 'node_modules'));
  await rename(partial, dir);
  progress(`the code of ${full.slice(0, 12)} exported to ${dir}`);
  return dir;
}

import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnManaged } from '../../src/stack/process.ts';

const cli = fileURLToPath(new URL('../../bin/neoflow.js', import.meta.url));

/** Node's arguments for `neoflow <args>` as a user runs it (isolated-vm wants no snapshot). */
export const neoflowArgs = (...args: string[]) => ['--no-node-snapshot', cli, ...args];

/**
 * The same for the checkout at `root` (a benchmark running the code of another commit beside this
 * one), or this checkout's when `root` is undefined.
 */
export const neoflowArgsIn = (root: string | undefined, ...args: string[]) =>
  root === undefined ? neoflowArgs(...args) : ['--no-node-snapshot', join(root, 'bin', 'neoflow.js'), ...args];

/** `neoflow <command>` as a managed process in a test environment with only `env` (plus PATH and HOME). */
export function spawnNeoflow(command: 'api' | 'worker', env: Record<string, string>, output: string) {
  return spawnManaged(command, process.execPath, {
    args: neoflowArgs(command),
    env: { PATH: process.env.PATH, HOME: process.env.HOME, NEOFLOW_ENV: 'test', ...env },
    output,
  });
}

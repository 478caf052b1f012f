import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { neoflowArgs } from './neoflow-command.ts';

const run = promisify(execFile);

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `neoflow …` as a user would, with only the given environment; never throws. */
export async function neoflow(args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  try {
    const { stdout, stderr } = await run(process.execPath, neoflowArgs(...args), {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
      timeout: 30_000,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

/** `neoflow keys create` and the key from its last line. */
export async function createKeyWithCli(env: Record<string, string>, account: string, scopes?: string) {
  const result = await neoflow(['keys', 'create', '--account', account, ...(scopes ? ['--scopes', scopes] : [])], env);
  if (result.code !== 0) throw new Error(`keys create failed: ${result.stderr}`);
  return result.stdout.trimEnd().split('\n').at(-1)!;
}

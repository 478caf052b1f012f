import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { neoflow } from '../support/cli.ts';

interface Example {
  code: string;
  params?: Record<string, unknown>;
  env?: Record<string, string>;
  secrets?: Record<string, string>;
  expect: { status: 'completed' | 'failed'; result?: unknown; errorName?: string; log?: string };
}

/** Every `<!-- example: … -->` of docs/functions.md with the js block that follows it. */
async function examples(): Promise<Example[]> {
  const page = await readFile(new URL('../../docs/functions.md', import.meta.url), 'utf8');
  return [...page.matchAll(/<!-- example: (.*?) -->\s*```js\n([\s\S]*?)```/g)].map(([, spec, code]) => ({
    ...(JSON.parse(spec!) as Omit<Example, 'code'>),
    code: code!,
  }));
}

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'neoflow-fn-run-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

async function fnRun(file: string, flags: string[]) {
  return neoflow(['fn', 'run', file, '--rpc', inject('neoRpcUrl'), ...flags]);
}

const found = await examples();

describe('docs/functions.md, run by `neoflow fn run` as written', () => {
  it('has an example for each thing a function author reaches for', () => {
    const code = found.map((example) => example.code).join('\n');
    for (const used of ['getBalance', 'invokeRead', 'secrets.get', 'context.log', 'random.uuid', 'throw new'])
      expect(code).toContain(used);
  });

  it.each(found.map((example, index) => [index + 1, example] as const))('example %i', async (index, example) => {
    const file = join(dir, `example-${index}.js`);
    await writeFile(file, example.code);
    const params = JSON.stringify(example.params ?? {}).replace('$DEV_WALLET_ADDRESS', inject('devWallet').address);
    const flags = [
      '--params',
      params,
      ...Object.entries(example.env ?? {}).flatMap(([name, value]) => ['--env', `${name}=${value}`]),
      ...Object.entries(example.secrets ?? {}).flatMap(([name, value]) => ['--secret', `${name}=${value}`]),
    ];
    const { code, stdout, stderr } = await fnRun(file, flags);
    expect(stderr).toBe('');
    const outcome = JSON.parse(stdout) as Record<string, any>;
    expect(outcome.status).toBe(example.expect.status);
    expect(code).toBe(example.expect.status === 'completed' ? 0 : 1);
    expect(outcome.durationMs).toEqual(expect.any(Number));
    if (example.expect.result !== undefined) expect(outcome.result).toMatchObject(example.expect.result as object);
    if (example.expect.errorName) expect(outcome.error.name).toBe(example.expect.errorName);
    if (example.expect.log)
      expect(outcome.logs.map((line: { message: string }) => line.message)).toContain(example.expect.log);
    for (const value of Object.values(example.secrets ?? {})) expect(JSON.stringify(outcome.logs)).not.toContain(value);
  });
});

describe('neoflow fn run', () => {
  it('stops a run at its timeout with TimeoutError and exit code 1, and refuses code with no entry point', async () => {
    const spinning = join(dir, 'spin.js');
    await writeFile(spinning, 'module.exports = async () => { for (;;); };');
    const stopped = await fnRun(spinning, ['--timeout', '1']);
    expect(stopped.code).toBe(1);
    expect(JSON.parse(stopped.stdout).error).toMatchObject({ name: 'TimeoutError' });

    const entryless = join(dir, 'entryless.js');
    await writeFile(entryless, 'const x = 1;');
    const refused = await fnRun(entryless, []);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^neoflow: Define the function as module\.exports/);
  });
});

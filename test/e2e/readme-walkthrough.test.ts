import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import { expect, inject, it } from 'vitest';
import { createKeyWithCli } from '../support/cli.ts';
import { uniqueAccountName } from '../support/keys.ts';

const run = promisify(execFile);
const heading = '### From a secret to an automation and its runs';

/** The README's walk-through, exactly as a newcomer copies it, pointed at this stack's API. */
async function walkthrough(apiUrl: string): Promise<string> {
  const readme = await readFile(new URL('../../README.md', import.meta.url), 'utf8');
  const section = readme.slice(readme.indexOf(heading));
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1];
  if (!block) throw new Error(`no shell block under "${heading}" in README.md`);
  return block.replaceAll('http://127.0.0.1:8080', apiUrl);
}

it("runs the README's walk-through, from a secret to a function that reads it to an automation and its runs", async () => {
  const { apiUrl, env } = inject('stack');
  const key = await createKeyWithCli(env, uniqueAccountName('readme'));
  const script = `set -euo pipefail\n${await walkthrough(apiUrl)}`;
  const { stdout } = await run('bash', ['-c', script], { env: { ...process.env, KEY: key }, timeout: 60_000 });
  const answers = stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, any>);
  const [secret, invoked, fired, runs, executions] = answers;
  expect(secret).toMatchObject({ name: 'GREETING' });
  expect(secret).not.toHaveProperty('value');
  expect(invoked!.data.result).toMatchObject({
    greeting: 'hello from a secret',
    to: 'neo',
    height: expect.any(Number),
  });
  expect(fired!.run).toMatchObject({ id: expect.stringMatching(/^run_/), status: 'running' });
  expect(runs!.runs.map((one: { id: string }) => one.id)).toContain(fired!.run.id);
  expect(executions!.pagination.total).toBeGreaterThanOrEqual(1);
});

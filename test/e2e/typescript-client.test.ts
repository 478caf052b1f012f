import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { filesUnder, generateClient, generatedDir } from '../../scripts/generate-client.ts';
import { offlineOpenApiDocument } from '../../src/app/openapi-document.ts';
import { createKeyWithCli } from '../support/cli.ts';
import { uniqueAccountName } from '../support/keys.ts';

const run = promisify(execFile);
const root = resolve(import.meta.dirname, '../..');
const clientDir = join(root, 'clients/typescript');
const scratch = await mkdtemp(join(tmpdir(), 'neoflow-ts-client-'));
// What a user's project says for its walkthrough.ts to be a module (top-level await).
await writeFile(join(scratch, 'package.json'), JSON.stringify({ type: 'module' }));
afterAll(() => rm(scratch, { recursive: true, force: true }));

/** The client README's walk-through, as a user saves it, importing the package from this checkout. */
async function walkthrough(): Promise<string> {
  const readme = await readFile(join(clientDir, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Walkthrough'));
  const block = /```ts\n([\s\S]*?)```/.exec(section)?.[1];
  if (!block) throw new Error('no TypeScript block under "## Walkthrough" in clients/typescript/README.md');
  return block.replaceAll("from '@neoflow/client'", `from '${join(clientDir, 'src/index.ts')}'`);
}

describe('the TypeScript client (clients/typescript)', () => {
  it("runs its README's walk-through against the stack from `neoflow up`", async () => {
    const { apiUrl, env } = inject('stack');
    const key = await createKeyWithCli(env, uniqueAccountName('ts-client'));
    const file = join(scratch, 'walkthrough.ts');
    await writeFile(file, (await walkthrough()).replaceAll('http://127.0.0.1:8080', apiUrl));
    const { stdout } = await run(process.execPath, [file], {
      env: { ...process.env, NEOFLOW_API_KEY: key },
      timeout: 60_000,
    });
    const lines = stdout.trim().split('\n');
    const value = (label: string) => lines.find((line) => line.startsWith(`${label} `))?.slice(label.length + 1);
    expect(value('secret')).toMatch(/^sec_/);
    expect(JSON.parse(value('invoked')!)).toMatchObject({
      greeting: 'hello from a secret',
      to: 'neo',
      height: expect.any(Number),
    });
    const fired = value('fired')!;
    expect(fired).toMatch(/^run_/);
    // Every run through the iterator, the fired one among them; the invoke's execution likewise.
    expect(lines).toContainEqual(expect.stringMatching(new RegExp(`^run ${fired} `)));
    expect(lines.filter((line) => line.startsWith('execution exec_')).length).toBeGreaterThanOrEqual(1);
    // The same name again: a 409 of the functions area, typed and narrowed by the operation's errors.
    expect(value('refused')).toBe('409 conflict');
  });

  it('is generated from the routes as they are: the committed files are what `npm run client:generate` writes', async () => {
    const fresh = join(scratch, 'generated');
    await generateClient(fresh);
    const committed = await filesUnder(generatedDir);
    expect(await filesUnder(fresh), 'run `npm run client:generate` and commit the result').toEqual(committed);
    for (const file of committed)
      expect(await readFile(join(fresh, file), 'utf8'), `${file} is stale: run \`npm run client:generate\``).toBe(
        await readFile(join(generatedDir, file), 'utf8'),
      );
  });

  it('is generated from the document the API serves, built in process without a stack, but for its server', async () => {
    const { apiUrl } = inject('stack');
    const served = (await (await fetch(`${apiUrl}/v1/openapi.json`)).json()) as { servers: unknown };
    // Served, the server is the origin asked; offline, the address of `neoflow up` with its defaults.
    expect(served.servers).toEqual([{ url: new URL(apiUrl).origin }]);
    expect({ ...(offlineOpenApiDocument() as object), servers: served.servers }).toEqual(served);
  });

  it('compiles a user\'s code under `tsc --strict`: numbers for "limit", resources by name, errors narrowed by code', async () => {
    const tsc = join(root, 'node_modules/typescript/bin/tsc');
    const options = [
      '--strict',
      '--noEmit',
      '--target',
      'es2023',
      '--module',
      'nodenext',
      '--lib',
      'es2023,dom,dom.iterable',
    ];
    const files = [join(clientDir, 'examples/usage.ts'), join(scratch, 'walkthrough.ts')];
    await writeFile(files[1]!, await walkthrough());
    const compiled = await run(process.execPath, [
      tsc,
      ...options,
      '--allowImportingTsExtensions',
      '--types',
      'node',
      '--typeRoots',
      join(root, 'node_modules/@types'),
      ...files,
    ]).catch((error: { stdout: string }) => ({ stdout: error.stdout, failed: true }));
    expect(compiled.stdout).toBe('');
  });
});

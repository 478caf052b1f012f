import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../support/api.ts';
import { neoflow } from '../support/cli.ts';
import { testApi, type ApiCall } from '../support/http.ts';
import { issueKey } from '../support/keys.ts';

let api: TestApi;
let key: string;
let call: ApiCall;
let dir: string;
beforeAll(async () => {
  api = await startTestApi();
  ({ key } = await issueKey(api.database.orm));
  call = testApi(api.url, key);
  dir = await mkdtemp(join(tmpdir(), 'neoflow-deploy-'));
});
afterAll(async () => {
  await api.close();
  await rm(dir, { recursive: true, force: true });
});

const deploy = (args: string[], apiKey = key) =>
  neoflow(['fn', 'deploy', ...args], { NEOFLOW_API_URL: api.url, NEOFLOW_API_KEY: apiKey });

async function file(name: string, code: string) {
  const path = join(dir, name);
  await writeFile(path, code);
  return path;
}

const read = async (id: string) =>
  (await call('GET', `/functions/${id}?include_code=true`)).body.data as Record<string, unknown>;

describe('neoflow fn deploy', () => {
  it('creates a function from a TypeScript file, then updates the same one, printing its id and version', async () => {
    const first = await file(
      'greet.ts',
      'export default async (context: { params: { n: number } }): Promise<number> => context.params.n;\n',
    );
    const created = await deploy([
      first,
      '--name',
      'greet',
      '--env',
      'MODE=one',
      '--allowed-hosts',
      'api.example.com,*.example.org',
    ]);
    expect(created).toMatchObject({ code: 0, stderr: '' });
    const printed = JSON.parse(created.stdout) as Record<string, unknown>;
    expect(printed).toMatchObject({ id: expect.stringMatching(/^func_/), name: 'greet', created: true });
    const stored = await read(printed.id as string);
    expect(stored).toMatchObject({
      runtime: 'typescript',
      environment: { MODE: 'one' },
      allowedHosts: ['api.example.com', '*.example.org'],
    });
    expect(printed.version).toBe(1);
    expect(stored.version).toBe(1);

    const second = await file('greet.js', 'module.exports = async () => "v2";\n');
    const updated = await deploy([second, '--name', 'greet']);
    expect(updated).toMatchObject({ code: 0, stderr: '' });
    const again = JSON.parse(updated.stdout) as Record<string, unknown>;
    expect(again).toMatchObject({ id: printed.id, created: false });
    const changed = await read(printed.id as string);
    expect(changed).toMatchObject({ code: 'module.exports = async () => "v2";\n', runtime: 'node18' });
    // Flags not given leave the function's environment as it was.
    expect(changed).toMatchObject({ environment: { MODE: 'one' }, allowedHosts: ['api.example.com', '*.example.org'] });
    expect(again.version).toBe(2);
    expect(changed.version).toBe(2);
  });

  it('grants the secrets --secrets names, and refuses one the account lacks, as the API does', async () => {
    await call('POST', '/secrets', { name: 'TOKEN', value: 'secret-value' });
    const code = await file('secrets.js', 'module.exports = async (context) => context.secrets.TOKEN.length;\n');
    const granted = await deploy([code, '--name', 'with-secret', '--secrets', 'TOKEN']);
    expect(granted.code).toBe(0);
    expect(await read((JSON.parse(granted.stdout) as { id: string }).id)).toMatchObject({ secrets: ['TOKEN'] });
    const refused = await deploy([code, '--name', 'with-secret', '--secrets', 'TOKEN,MISSING']);
    expect(refused).toMatchObject({ code: 1, stdout: '' });
    expect(refused.stderr).toMatch(/^neoflow: invalid_request: No secret named "MISSING"/);
  });

  it('answers a syntax error with exit code 1 and its place in the file', async () => {
    const broken = await file(
      'broken.ts',
      'interface P { n: number }\nexport default async (context: P) => {\n  const x: = 1;\n};\n',
    );
    const refused = await deploy([broken, '--name', 'broken']);
    expect(refused).toMatchObject({ code: 1, stdout: '' });
    expect(refused.stderr).toMatch(
      /^neoflow: invalid_function_code: The code does not parse as TypeScript: .*\(.*broken\.ts:3:12\)\n$/,
    );
  });

  it('needs a name and an API key, and says which key is refused', async () => {
    const code = await file('plain.js', 'module.exports = async () => 1;\n');
    expect((await deploy([code])).stderr).toMatch(/^neoflow: usage: neoflow fn deploy/);
    const keyless = await neoflow(['fn', 'deploy', code, '--name', 'x'], { NEOFLOW_API_URL: api.url });
    expect(keyless).toMatchObject({ code: 1, stderr: expect.stringMatching(/needs NEOFLOW_API_KEY/) });
    expect((await deploy([code, '--name', 'x'], 'nf_wrong')).stderr).toMatch(/^neoflow: unauthorized: /);
  });
});

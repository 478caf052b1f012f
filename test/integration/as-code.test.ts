import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { commandUsages } from '../../src/cli/commands.ts';
import { startTestApi, type TestApi } from '../support/api.ts';
import { neoflow } from '../support/cli.ts';
import { testApi, type ApiCall } from '../support/http.ts';
import { issueKey } from '../support/keys.ts';

// `neoflow export` and `neoflow apply` against the real API: an account written as a file, the
// file applied back (a plan of nothing), changed, pruned, and applied to another account; no
// value of a secret or a credential in any file or plan.

let api: TestApi;
let key: string;
let call: ApiCall;
let account: string;
let dir: string;
const marker = (label: string) => `${label}${randomBytes(10).toString('hex')}`;
const secretValue = marker('secretvalue');
const hookPath = `/services/T0001/B0002/${marker('hookpath')}`;
const hookUrl = `https://hooks.example.com${hookPath}`;
const headerToken = marker('headertoken');
const secretsAndCredentials = [secretValue, hookPath.slice(-20), headerToken];

const cli = (args: string[], env: Record<string, string> = {}, apiKey = key) =>
  neoflow(args, { NEOFLOW_API_URL: api.url, NEOFLOW_API_KEY: apiKey, ...env });

beforeAll(async () => {
  api = await startTestApi();
  ({ key, account } = await issueKey(api.database.orm));
  call = testApi(api.url, key);
  dir = await mkdtemp(join(tmpdir(), 'neoflow-as-code-'));
  expect((await call('POST', '/secrets', { name: 'TOKEN', value: secretValue, description: 'signs' })).status).toBe(
    201,
  );
  const fn = await call('POST', '/functions', {
    name: 'greet',
    runtime: 'node18',
    code: 'module.exports = async (context) => `hello ${context.params.who}`;\n',
    environment: { MODE: 'one' },
    secrets: ['TOKEN'],
  });
  expect(fn.status).toBe(201);
  const functionId = (fn.body.data as { id: string }).id;
  const automation = (name: string, cron: string) =>
    call('POST', '/automations', {
      name,
      trigger: { type: 'schedule', cron },
      action: { type: 'function', functionId, parameters: { who: name } },
      notify: [
        {
          on: ['failure'],
          channel: { type: 'webhook', url: hookUrl, headers: { 'X-Token': headerToken }, signingSecret: 'TOKEN' },
        },
      ],
    });
  expect((await automation('hourly', '0 * * * *')).status).toBe(201);
  expect((await automation('nightly', '0 3 * * *')).status).toBe(201);
});
afterAll(async () => {
  await api.close();
  await rm(dir, { recursive: true, force: true });
});

async function exported(name: string): Promise<{ path: string; text: string }> {
  const result = await cli(['export']);
  expect(result).toMatchObject({ code: 0, stderr: '' });
  const path = join(dir, name);
  await writeFile(path, result.stdout);
  return { path, text: result.stdout };
}

/** The file, changed by `edit` on its parsed content, written beside it. */
async function edited(from: string, name: string, edit: (content: any) => void) {
  const content = parse(await readFile(from, 'utf8'));
  edit(content);
  const path = join(dir, name);
  await writeFile(path, stringify(content));
  return path;
}

const automationsByName = async (apiKey = key) => {
  const listed = await call('GET', '/automations?limit=100', undefined, apiKey);
  const { automations } = listed.body as unknown as { automations: { name: string }[] };
  return new Map<string, unknown>(automations.map((automation) => [automation.name, automation]));
};

const expectNoSecrets = (text: string) => {
  for (const value of secretsAndCredentials) expect(text).not.toContain(value);
};

describe('neoflow export', () => {
  it("writes the account's secrets by name, its functions and automations, and no secret or credential value", async () => {
    const { text } = await exported('neoflow.yaml');
    expectNoSecrets(text);
    const content = parse(text);
    expect(content).toMatchObject({ version: 1, account });
    expect(content.secrets).toEqual([{ name: 'TOKEN', description: 'signs', value: { env: 'NEOFLOW_SECRET_TOKEN' } }]);
    expect(content.functions).toEqual([
      expect.objectContaining({ name: 'greet', runtime: 'node18', environment: { MODE: 'one' }, secrets: ['TOKEN'] }),
    ]);
    expect(content.functions[0].code).toBe('module.exports = async (context) => `hello ${context.params.who}`;\n');
    const hourly = content.automations.find((automation: any) => automation.name === 'hourly');
    expect(hourly).toMatchObject({
      status: 'active',
      trigger: { type: 'schedule', cron: '0 * * * *' },
      action: { type: 'function', function: 'greet', parameters: { who: 'hourly' } },
    });
    expect(hourly.notify[0].channel).toEqual({
      type: 'webhook',
      url: { env: 'NEOFLOW_CREDENTIAL_HOURLY_NOTIFY_0_CHANNEL_URL' },
      headers: { 'X-Token': { env: 'NEOFLOW_CREDENTIAL_HOURLY_NOTIFY_0_CHANNEL_HEADERS_X_TOKEN' } },
      signingSecret: 'TOKEN',
    });
    for (const automation of content.automations) {
      expect(Object.keys(automation).sort()).toEqual(['action', 'name', 'network', 'notify', 'status', 'trigger']);
    }
  });

  it('writes code to files with --code-dir, which apply reads back', async () => {
    const codeDir = join(dir, 'functions');
    const result = await cli(['export', '--code-dir', codeDir]);
    expect(result.code).toBe(0);
    const content = parse(result.stdout);
    expect(content.functions[0]).toMatchObject({ codeFile: join(codeDir, 'greet.js') });
    expect(content.functions[0].code).toBeUndefined();
    expect(await readFile(join(codeDir, 'greet.js'), 'utf8')).toContain('hello');
    const path = join(dir, 'by-file.yaml');
    await writeFile(path, result.stdout);
    expect((await cli(['apply', '-f', path, '--dry-run'])).stdout).toContain('No changes');
  });

  it('refuses an --account the key is not of', async () => {
    const result = await cli(['export', '--account', 'someone-else']);
    expect(result).toMatchObject({ code: 1, stdout: '' });
    expect(result.stderr).toMatch(/is a key of account .*, not of someone-else/);
  });
});

describe('neoflow apply', () => {
  it('plans nothing for the file the account was exported as, with or without the values in the environment', async () => {
    const { path } = await exported('same.yaml');
    const plain = await cli(['apply', '-f', path, '--dry-run']);
    expect(plain).toMatchObject({ code: 0, stderr: '' });
    expect(plain.stdout).toContain('No changes: the account holds what the file says.');
    // The same values given: their masks match what is stored, so nothing shows a change.
    const values = {
      NEOFLOW_SECRET_TOKEN: secretValue,
      NEOFLOW_CREDENTIAL_HOURLY_NOTIFY_0_CHANNEL_URL: hookUrl,
      NEOFLOW_CREDENTIAL_HOURLY_NOTIFY_0_CHANNEL_HEADERS_X_TOKEN: headerToken,
    };
    const withValues = await cli(['apply', '-f', path, '--dry-run'], values);
    expect(withValues.stdout).toContain('No changes');
    // --send-secrets sends them again, and shows where they come from, never what they are.
    const resent = await cli(['apply', '-f', path, '--dry-run', '--send-secrets'], values);
    expect(resent.code).toBe(0);
    expect(resent.stdout).toContain('+ value = (write-only, sent again from $NEOFLOW_SECRET_TOKEN)');
    expect(resent.stdout).toContain('(write-only, sent again from $NEOFLOW_CREDENTIAL_HOURLY_NOTIFY_0_CHANNEL_URL)');
    expect(resent.stdout).toContain('Plan: 0 to create, 2 to update, 0 to delete.');
    expectNoSecrets(resent.stdout + resent.stderr);
  });

  it('plans exactly one update for a changed cron, applies it, then plans nothing', async () => {
    const { path: base } = await exported('base.yaml');
    const path = await edited(base, 'cron.yaml', (content) => {
      content.automations.find((automation: any) => automation.name === 'hourly').trigger.cron = '*/5 * * * *';
    });
    const before = (await automationsByName()).get('hourly') as any;
    const plan = await cli(['apply', '-f', path, '--dry-run']);
    expect(plan).toMatchObject({ code: 0, stderr: '' });
    expect(plan.stdout).toContain(
      `~ automation hourly (${before.id})\n      ~ trigger.cron: "0 * * * *" → "*/5 * * * *"\n`,
    );
    expect(plan.stdout).toContain('Plan: 0 to create, 1 to update, 0 to delete.');
    expect(((await automationsByName()).get('hourly') as any).trigger.cron).toBe('0 * * * *');

    const applied = await cli(['apply', '-f', path]);
    expect(applied).toMatchObject({ code: 0, stderr: '' });
    expect(applied.stdout).toContain(`updated automation hourly (${before.id})`);
    const after = (await automationsByName()).get('hourly') as any;
    expect(after.trigger.cron).toBe('*/5 * * * *');
    // The credentials the file left to the account are kept as they were.
    expect(after.notify).toEqual(before.notify);
    expect((await cli(['apply', '-f', path, '--dry-run'])).stdout).toContain('No changes');
    expectNoSecrets(plan.stdout + applied.stdout);
  });

  it('leaves alone what the file no longer holds, and deletes it with --prune', async () => {
    const { path: base } = await exported('prune-base.yaml');
    const path = await edited(base, 'pruned.yaml', (content) => {
      content.automations = content.automations.filter((automation: any) => automation.name !== 'nightly');
    });
    const nightly = (await automationsByName()).get('nightly') as any;
    const kept = await cli(['apply', '-f', path, '--dry-run']);
    expect(kept.stdout).toContain('No changes');
    expect(kept.stdout).toContain('Left alone, not in the file (--prune deletes them): automation nightly.');
    const plan = await cli(['apply', '-f', path, '--dry-run', '--prune']);
    expect(plan.stdout).toContain(`- automation nightly (${nightly.id})`);
    expect(plan.stdout).toContain('Plan: 0 to create, 0 to update, 1 to delete.');
    const applied = await cli(['apply', '-f', path, '--prune']);
    expect(applied).toMatchObject({ code: 0, stderr: '' });
    expect(applied.stdout).toContain(`deleted automation nightly (${nightly.id})`);
    expect((await call('GET', `/automations/${nightly.id}`)).status).toBe(404);
    expect((await automationsByName()).has('hourly')).toBe(true);
    expect((await cli(['apply', '-f', path, '--dry-run', '--prune'])).stdout).toContain('No changes');
  });

  it('creates the whole file in another account, values from the environment, functions resolved by name', async () => {
    const { path } = await exported('to-copy.yaml');
    const other = await issueKey(api.database.orm);
    const values = {
      NEOFLOW_SECRET_TOKEN: secretValue,
      NEOFLOW_CREDENTIAL_HOURLY_NOTIFY_0_CHANNEL_URL: hookUrl,
      NEOFLOW_CREDENTIAL_HOURLY_NOTIFY_0_CHANNEL_HEADERS_X_TOKEN: headerToken,
    };
    const refused = await cli(['apply', '-f', path, '--dry-run'], values, other.key);
    expect(refused).toMatchObject({ code: 1, stdout: '' });
    expect(refused.stderr).toContain(
      `is for account ${account}, and NEOFLOW_API_KEY is a key of account ${other.account}`,
    );
    const missing = await cli(['apply', '-f', path, '--dry-run', '--account', other.account], {}, other.key);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain(
      'secret TOKEN must be created, and its value is needed: $NEOFLOW_SECRET_TOKEN is unset',
    );
    expect(missing.stderr).toContain('notify.0.channel.url comes from $NEOFLOW_CREDENTIAL_HOURLY_NOTIFY_0_CHANNEL_URL');

    const plan = await cli(['apply', '-f', path, '--dry-run', '--account', other.account], values, other.key);
    expect(plan).toMatchObject({ code: 0, stderr: '' });
    expect(plan.stdout).toContain('+ value = (write-only, from $NEOFLOW_SECRET_TOKEN)');
    expect(plan.stdout).toContain('Plan: 3 to create, 0 to update, 0 to delete.');
    const applied = await cli(['apply', '-f', path, '--account', other.account], values, other.key);
    expect(applied).toMatchObject({ code: 0, stderr: '' });
    expectNoSecrets(plan.stdout + applied.stdout);

    const functions = await call('GET', '/functions?name=greet', undefined, other.key);
    const greetId = (functions.body.data as { id: string }[])[0]!.id;
    const hourly = (await automationsByName(other.key)).get('hourly') as any;
    expect(hourly.action).toEqual({ type: 'function', functionId: greetId, parameters: { who: 'hourly' } });
    const original = (await automationsByName()).get('hourly') as any;
    expect(hourly.notify).toEqual(original.notify);
    const again = await cli(['apply', '-f', path, '--dry-run', '--account', other.account], {}, other.key);
    expect(again.stdout).toContain('No changes');
  });

  it('refuses a file with a bad field, naming its path and line', async () => {
    const path = join(dir, 'bad.yaml');
    await writeFile(
      path,
      [
        'version: 1',
        'automations:',
        '  - name: broken',
        '    trigger:',
        '      type: schedule',
        '      cron: every minute',
        '    action: { type: function, function: greet }',
        '',
      ].join('\n'),
    );
    const result = await cli(['apply', '-f', path, '--dry-run']);
    expect(result).toMatchObject({ code: 1, stdout: '' });
    expect(result.stderr).toContain(`${path}:6:13: automations[0].trigger.cron: is not a valid cron expression`);
    const unknownField = await edited(path, 'unknown.yaml', (content) => {
      content.automations[0].trigger.cron = '0 * * * *';
      content.automations[0].shedule = 'typo';
    });
    expect((await cli(['apply', '-f', unknownField, '--dry-run'])).stderr).toMatch(/automations\[0\]: .*shedule/);
    await writeFile(join(dir, 'big.yaml'), `version: 1\n# ${'x'.repeat(8 * 1024 * 1024)}\n`);
    expect((await cli(['apply', '-f', join(dir, 'big.yaml')])).stderr).toMatch(/is over 8388608 bytes/);
  });
});

describe('neoflow functions|automations|secrets list|get', () => {
  it('lists and shows by name, a secret without its value', async () => {
    expect((await cli(['functions', 'list'])).stdout).toMatch(/^func_\S+ {2}greet {2}node18/m);
    // Each automation's network (issue 45) beside its status.
    expect((await cli(['automations', 'list'])).stdout).toMatch(
      / {2}hourly {2}active {2}default {2}schedule → function\n/,
    );
    const fn = await cli(['functions', 'get', 'greet']);
    expect(JSON.parse(fn.stdout)).toMatchObject({ name: 'greet', environment: { MODE: 'one' } });
    const automation = await cli(['automations', 'get', 'hourly']);
    expect(JSON.parse(automation.stdout)).toMatchObject({ name: 'hourly', executionStats: expect.any(Object) });
    const secret = await cli(['secrets', 'get', 'TOKEN']);
    expect(JSON.parse(secret.stdout)).toMatchObject({ name: 'TOKEN', description: 'signs' });
    expectNoSecrets((await cli(['secrets', 'list'])).stdout + secret.stdout + automation.stdout);
    expect((await cli(['functions', 'get', 'nope'])).stderr).toBe('neoflow: no function named or with id nope\n');
  });
});

describe('neoflow --help', () => {
  it('answers every command with its usage and exit code 0', async () => {
    for (const { command } of [{ command: '' }, ...commandUsages]) {
      const result = await neoflow([...command.split(' ').filter(Boolean), '--help']);
      expect(result.code, command).toBe(0);
      expect(result.stdout, command).toContain(`Usage: neoflow`);
      expect(result.stdout, command).toContain(command);
    }
  });
});

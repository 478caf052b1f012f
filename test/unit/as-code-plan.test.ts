import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createAutomationBody } from '../../src/automations/automations.schemas.ts';
import { credentialsOf, masked } from '../../src/automations/credentials/credentials.ts';
import type { AccountState, RemoteAutomation } from '../../src/cli/as-code/account-state.ts';
import { credentialSlots } from '../../src/cli/as-code/credential-slots.ts';
import { loadNeoflowFile } from '../../src/cli/as-code/neoflow-file.ts';
import { planChanges } from '../../src/cli/as-code/plan.ts';
import { planText } from '../../src/cli/as-code/plan-text.ts';
import { exportFile } from '../../src/cli/as-code/export-file.ts';

const everyCredential = createAutomationBody.parse({
  name: 'all',
  trigger: {
    type: 'price',
    asset: 'NEO',
    condition: 'above',
    value: '10',
    currency: 'USD',
    source: { url: 'https://prices.example.com/v1/neo?key=k', path: 'price' },
  },
  action: { type: 'webhook', url: 'https://a.example.com/hook', headers: { 'X-A': 'a' }, signingSecret: 'S' },
  notify: [
    { on: ['failure'], channel: { type: 'slack', url: 'https://hooks.slack.com/services/T/B/x' } },
    { on: ['failure'], channel: { type: 'telegram', botTokenSecret: 'BOT', chatId: '1' } },
    {
      on: ['failure'],
      channel: { type: 'webhook', url: 'https://b.example.com/h', headers: { 'X-B': 'b' }, signingSecret: 'S' },
    },
  ],
});

async function fileOf(text: string) {
  const path = join(await mkdtemp(join(tmpdir(), 'neoflow-plan-')), 'neoflow.yaml');
  await writeFile(path, text);
  return path;
}

const hook = 'https://hooks.example.com/services/T1/B2/secretpart';
const remote = (overrides: Partial<RemoteAutomation> = {}): RemoteAutomation => ({
  id: 'auto_1',
  name: 'hourly',
  status: 'active',
  network: 'mainnet',
  trigger: { type: 'schedule', cron: '0 * * * *' },
  action: { type: 'function', functionId: 'func_1', parameters: {} },
  ...masked({
    notify: [{ on: ['failure'], channel: { type: 'webhook', url: hook, signingSecret: 'TOKEN' } }],
  }),
  ...overrides,
});
const state = (automations: RemoteAutomation[] = [remote()]): AccountState => ({
  account: { id: 'acct_1', name: 'acme' },
  secrets: [{ id: 'sec_1', name: 'TOKEN', description: null }],
  signers: [{ id: 'sgn_1', name: 'default', type: 'generated', backend: null, budget: null }],
  functions: [
    {
      id: 'func_1',
      name: 'greet',
      description: null,
      runtime: 'node18',
      timeout: 30,
      environment: {},
      secrets: [],
      tags: [],
      allowedHosts: [],
      code: 'module.exports = async () => 1;\n',
    },
  ],
  automations,
});

const yamlOf = (cron: string, extra = '') => `version: 1
secrets:
  - name: TOKEN
    value: { env: NEOFLOW_SECRET_TOKEN }
functions:
  - name: greet
    runtime: node18
    code: |
      module.exports = async () => 1;
automations:
  - name: hourly
    trigger: { type: schedule, cron: "${cron}" }
    action: { type: function, function: greet }
    notify:
      - on: [failure]
        channel: { type: webhook, url: { env: NEOFLOW_CREDENTIAL_HOOK_URL }, signingSecret: TOKEN }
${extra}`;

const plan = async (text: string, env: NodeJS.ProcessEnv = {}, options = { prune: false, sendSecrets: false }) =>
  planChanges(await loadNeoflowFile(await fileOf(text), env), state(), options);

describe('credential places', () => {
  it('are the places src/automations/credentials/credentials.ts names, found before validation', () => {
    const slots = credentialSlots(structuredClone(everyCredential));
    expect(slots.map(({ path, kind }) => ({ path, kind }))).toEqual(
      credentialsOf(everyCredential).map(({ path, kind }) => ({ path, kind })),
    );
  });
});

describe('planChanges', () => {
  it('plans nothing when the file says what the account holds, an unset credential keeping what is stored', async () => {
    const planned = await plan(yamlOf('0 * * * *'));
    expect(planned.changes).toEqual([]);
    expect(planText(planned)).toContain('No changes');
  });

  it('plans one field of one automation for a changed cron, and sends the stored mask back for a kept credential', async () => {
    const [change, ...others] = (await plan(yamlOf('*/5 * * * *'))).changes;
    expect(others).toEqual([]);
    expect(change).toMatchObject({ kind: 'automation', op: 'update', id: 'auto_1' });
    expect(change!.fields).toEqual([{ path: 'trigger.cron', before: '"0 * * * *"', after: '"*/5 * * * *"' }]);
    expect(change!.body).toEqual({ trigger: { type: 'schedule', cron: '*/5 * * * *' } });
  });

  it('sends a credential whose mask changed, showing where it comes from and never its value', async () => {
    const other = 'https://other.example.com/private/path';
    const planned = await plan(yamlOf('0 * * * *'), { NEOFLOW_CREDENTIAL_HOOK_URL: other });
    const [change] = planned.changes;
    expect(change!.fields).toEqual([
      {
        path: 'notify.0.channel.url',
        before: '"https://hooks.example.com/services…/****"',
        after: '(write-only, from $NEOFLOW_CREDENTIAL_HOOK_URL)',
      },
    ]);
    expect((change!.body!.notify as { channel: { url: string } }[])[0]!.channel.url).toBe(other);
    expect(planText(planned)).not.toContain('private/path');
    // The same value again: its mask is the stored one's, so nothing shows a change.
    expect((await plan(yamlOf('0 * * * *'), { NEOFLOW_CREDENTIAL_HOOK_URL: hook })).changes).toEqual([]);
  });

  it('compares a status only when the file gives one', async () => {
    const paused = planChanges(
      await loadNeoflowFile(await fileOf(yamlOf('0 * * * *')), {}),
      state([remote({ status: 'inactive' })]),
      { prune: false, sendSecrets: false },
    );
    expect(paused.changes).toEqual([]);
    const [change] = (
      await plan(yamlOf('0 * * * *').replace('  - name: hourly\n', '  - name: hourly\n    status: inactive\n'))
    ).changes;
    expect(change!.body).toEqual({ status: 'inactive' });
  });

  it("compares a network only when the file gives one, refuses another than the automation's, and sends one to create", async () => {
    const withNetwork = (network: string, name = 'hourly') =>
      yamlOf('0 * * * *').replace('  - name: hourly\n', `  - name: ${name}\n    network: ${network}\n`);
    expect((await plan(withNetwork('mainnet'))).changes).toEqual([]);
    await expect(plan(withNetwork('testnet'))).rejects.toThrow(
      /automation hourly is on the network mainnet and the file says testnet: an automation's network never changes/,
    );
    const env = { NEOFLOW_CREDENTIAL_HOOK_URL: hook };
    const planned = await plan(withNetwork('testnet', 'hourly-testnet'), env);
    const created = planned.changes.find(({ op }) => op === 'create');
    expect(created!.body).toMatchObject({ name: 'hourly-testnet', network: 'testnet' });
    expect(created!.fields).toContainEqual({ path: 'network', after: '"testnet"' });
  });

  it('with --prune, deletes what the file does not hold: automations first, secrets last', async () => {
    const text = 'version: 1\n';
    const kept = await plan(text);
    expect(kept.changes).toEqual([]);
    expect(kept.leftAlone.map(({ kind }) => kind)).toEqual(['automation', 'function', 'secret']);
    const pruned = await plan(text, {}, { prune: true, sendSecrets: false });
    expect(pruned.changes.map(({ kind, op, id }) => `${op} ${kind} ${id}`)).toEqual([
      'delete automation auto_1',
      'delete function func_1',
      'delete secret sec_1',
    ]);
  });

  it('refuses a function or a secret that neither the file nor the account holds, and a credential with nothing to keep', async () => {
    const text = yamlOf(
      '0 * * * *',
      '  - name: fresh\n    trigger: { type: schedule, cron: "0 0 * * *" }\n    action: { type: webhook, url: { env: NEOFLOW_CREDENTIAL_FRESH_URL }, signingSecret: MISSING }\n',
    ).replace('function: greet', 'function: gone');
    await expect(plan(text)).rejects.toThrow(
      /automation hourly runs the function gone[\s\S]*automation fresh names the secret MISSING[\s\S]*action\.url comes from \$NEOFLOW_CREDENTIAL_FRESH_URL, which is unset/,
    );
  });
});

describe('loadNeoflowFile', () => {
  it('names the path and line of each bad field', async () => {
    const text = yamlOf('not a cron').replace('runtime: node18', 'runtime: cobol');
    await expect(loadNeoflowFile(await fileOf(text), {})).rejects.toThrow(
      /:7:14: functions\[0\]\.runtime: must be node16, node18 or typescript\n.*:12:38: automations\[0\]\.trigger\.cron: is not a valid cron expression/,
    );
  });

  it('refuses ids where names belong, names given twice, and a YAML alias bomb', async () => {
    await expect(
      loadNeoflowFile(await fileOf(yamlOf('0 * * * *').replace('function: greet', 'functionId: func_1')), {}),
    ).rejects.toThrow(/automations\[0\]\.action\.functionId: ids differ between accounts/);
    const twice = `version: 1\nsecrets:\n  - { name: A }\n  - { name: A }\n`;
    await expect(loadNeoflowFile(await fileOf(twice), {})).rejects.toThrow(/secrets\[1\]\.name: names "A" twice/);
    const bomb = [
      'version: 1',
      'a: &a [x, x, x, x, x, x, x, x, x, x]',
      ...Array.from(
        { length: 12 },
        (_, i) =>
          `${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [${Array(10)
            .fill(`*${String.fromCharCode(97 + i)}`)
            .join(', ')}]`,
      ),
    ].join('\n');
    await expect(loadNeoflowFile(await fileOf(bomb), {})).rejects.toThrow(/alias/i);
  });
});

it("docs/examples/neoflow.yaml, the worked example's file, is valid", async () => {
  const file = await loadNeoflowFile(new URL('../../docs/examples/neoflow.yaml', import.meta.url).pathname, {});
  expect(file.functions.map(({ name }) => name)).toEqual(['neo-price-check']);
  expect(file.automations[0]).toMatchObject({ action: { type: 'function', function: 'neo-price-check' } });
});

describe('an action with approvals', () => {
  const approval = { required: 2, timeout: '1h', when: { feeAbove: '0.5' } };
  const contract = {
    type: 'contract' as const,
    scriptHash: `0x${'ab'.repeat(20)}`,
    operation: 'ping',
    args: [],
    signer: 'sgn_1',
    approval,
  };

  it('is exported with its approval option and applies back unchanged; a changed option is an update', async () => {
    const account = state([remote({ action: contract })]);
    const text = await exportFile(account, { codeDir: undefined });
    expect(text).toContain(
      'approval:\n        required: 2\n        timeout: 1h\n        when:\n          feeAbove: "0.5"\n',
    );
    const options = { prune: false, sendSecrets: false };
    expect(planChanges(await loadNeoflowFile(await fileOf(text), {}), account, options).changes).toEqual([]);
    const longer = text.replace('timeout: 1h', 'timeout: 2d');
    const [change] = planChanges(await loadNeoflowFile(await fileOf(longer), {}), account, options).changes;
    expect(change!.body).toMatchObject({ action: { approval: { ...approval, timeout: '2d' } } });
  });
});

import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { wallet } from '@cityofzion/neon-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../support/api.ts';
import { neoflow } from '../support/cli.ts';
import { testApi, type ApiCall } from '../support/http.ts';
import { issueKey } from '../support/keys.ts';

// `neoflow export` and `apply` of signers against the real API: an imported key never in the file
// or a plan, brought to another account from the environment, with the automations naming it.
let api: TestApi;
let dir: string;
let call: ApiCall;
let source: { key: string; account: string };
const imported = new wallet.Account(wallet.generatePrivateKey());
const contract = { type: 'contract', scriptHash: `0x${'ab'.repeat(20)}`, operation: 'ping', args: [] };

const cli = (args: string[], apiKey: string, env: Record<string, string> = {}) =>
  neoflow(args, { NEOFLOW_API_URL: api.url, NEOFLOW_API_KEY: apiKey, ...env });

beforeAll(async () => {
  api = await startTestApi();
  dir = await mkdtemp(join(tmpdir(), 'neoflow-as-code-signers-'));
  source = await issueKey(api.database.orm);
  call = testApi(api.url, source.key);
  expect((await call('POST', '/signers', { name: 'owner', type: 'import', privateKey: imported.WIF })).status).toBe(
    201,
  );
  const automation = await call('POST', '/automations', {
    name: 'owned',
    status: 'inactive',
    trigger: { type: 'schedule', cron: '@yearly' },
    action: { ...contract, signer: 'owner' },
  });
  expect(automation.status).toBe(201);
});
afterAll(async () => {
  await api.close();
  await rm(dir, { recursive: true, force: true });
});

describe('signers as code', () => {
  it('exports an imported signer without its key, and applies it to another account from the environment', async () => {
    const exported = await cli(['export'], source.key);
    expect(exported).toMatchObject({ code: 0, stderr: '' });
    expect(exported.stdout).toContain('privateKey:\n      env: NEOFLOW_SIGNER_OWNER');
    expect(exported.stdout).toContain('signer: owner');
    const path = join(dir, 'neoflow.yaml');
    await writeFile(path, exported.stdout);
    expect((await cli(['apply', '-f', path, '--dry-run'], source.key)).stdout).toContain('No changes');

    const other = await issueKey(api.database.orm);
    const env = { NEOFLOW_SIGNER_OWNER: imported.WIF };
    const applied = await cli(['apply', '-f', path, '--account', other.account], other.key, env);
    expect(applied).toMatchObject({ code: 0, stderr: '' });
    expect(applied.stdout).toContain('+ privateKey = (write-only, from $NEOFLOW_SIGNER_OWNER)');
    for (const text of [exported.stdout, applied.stdout]) {
      expect(text).not.toContain(imported.WIF);
      expect(text.toLowerCase()).not.toContain(imported.privateKey);
    }
    const signers = (await call('GET', '/signers', undefined, other.key)).body as unknown as {
      signers: { id: string; name: string; address: string }[];
    };
    const owner = signers.signers.find(({ name }) => name === 'owner')!;
    expect(owner.address).toBe(imported.address);
    const automations = (await call('GET', '/automations', undefined, other.key)).body as unknown as {
      automations: { name: string; action: { signer?: string } }[];
    };
    expect(automations.automations.find(({ name }) => name === 'owned')!.action.signer).toBe(owner.id);
    // Applied again, the signer exists by name: nothing to do, and no key needed.
    expect((await cli(['apply', '-f', path, '--account', other.account, '--dry-run'], other.key)).stdout).toContain(
      'No changes',
    );
  });
});

import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { wallet } from '@cityofzion/neon-js';
import { describe, expect, it } from 'vitest';
import type { AccountState, RemoteAutomation } from '../../src/cli/as-code/account-state.ts';
import { exportFile } from '../../src/cli/as-code/export-file.ts';
import { loadNeoflowFile } from '../../src/cli/as-code/neoflow-file.ts';
import { planChanges } from '../../src/cli/as-code/plan.ts';
import { planText } from '../../src/cli/as-code/plan-text.ts';

// Signers as code: by name, an imported key never in the file, a signer that exists left alone.
const contract = { type: 'contract' as const, scriptHash: `0x${'ab'.repeat(20)}`, operation: 'ping', args: [] };
const automation = (name: string, signer: string): RemoteAutomation => ({
  id: `auto_${name}`,
  name,
  status: 'active',
  network: 'mainnet',
  trigger: { type: 'schedule', cron: '0 * * * *' },
  action: { ...contract, signer },
  notify: [],
});
const state: AccountState = {
  account: { id: 'acct_1', name: 'acme' },
  secrets: [],
  signers: [
    { id: 'sgn_default', name: 'default', type: 'generated', backend: null, budget: null },
    { id: 'sgn_ops', name: 'ops', type: 'aws-kms', backend: { keyId: 'alias/ops' }, budget: { perDay: '5' } },
    { id: 'sgn_owner', name: 'owner', type: 'import', backend: null, budget: null },
  ],
  functions: [],
  automations: [automation('by-default', 'sgn_default'), automation('by-ops', 'sgn_ops')],
};

async function fileOf(text: string) {
  const path = join(await mkdtemp(join(tmpdir(), 'neoflow-signers-')), 'neoflow.yaml');
  await writeFile(path, text);
  return path;
}

const options = { prune: false, sendSecrets: false };
const planOf = async (text: string, env: NodeJS.ProcessEnv = {}) =>
  planChanges(await loadNeoflowFile(await fileOf(text), env), state, options);

describe('neoflow export of signers', () => {
  it('writes signers and the automations naming them by name, an imported key only as where apply reads it', async () => {
    const text = await exportFile(state, { codeDir: undefined });
    expect(text).toContain(
      'signers:\n  - name: ops\n    type: aws-kms\n    keyId: alias/ops\n    budget:\n      perDay: "5"\n' +
        '  - name: owner\n    type: import\n    privateKey:\n      env: NEOFLOW_SIGNER_OWNER\n',
    );
    expect(text).not.toContain('name: default');
    expect(text).not.toContain('sgn_');
    expect(text.match(/signer: ops/g)).toHaveLength(1);
    // Applied back, the file is what the account holds: no key needed for a signer that exists.
    expect((await planOf(text)).changes).toEqual([]);
  });
});

describe('neoflow apply of signers', () => {
  const withSigners = (signers: string, signer = 'ops') => `version: 1
signers:
${signers}automations:
  - name: by-default
    trigger: { type: schedule, cron: "0 * * * *" }
    action: { type: contract, scriptHash: "${contract.scriptHash}", operation: ping, signer: ${signer} }
`;

  it('leaves a signer that exists by name as it is, and moves an automation to another signer by name', async () => {
    const planned = await planOf(withSigners('  - { name: ops, type: generated }\n'));
    expect(planned.changes).toHaveLength(1);
    expect(planned.changes[0]).toMatchObject({ kind: 'automation', op: 'update', id: 'auto_by-default' });
    expect(planned.changes[0]!.fields).toEqual([{ path: 'action.signer', after: '"ops"' }]);
  });

  it('creates an imported signer only with its key from the environment, never showing it', async () => {
    const entry = '  - { name: cold, type: import, privateKey: { env: NEOFLOW_SIGNER_COLD } }\n';
    await expect(planOf(withSigners(entry, 'cold'))).rejects.toThrow(
      /signer cold must be created, and its private key is needed: \$NEOFLOW_SIGNER_COLD is unset/,
    );
    const key = new wallet.Account(wallet.generatePrivateKey());
    const planned = await planOf(withSigners(entry, 'cold'), { NEOFLOW_SIGNER_COLD: key.WIF });
    const [created] = planned.changes;
    expect(created).toMatchObject({ kind: 'signer', op: 'create', name: 'cold' });
    expect(created!.body).toEqual({ name: 'cold', type: 'import', privateKey: key.WIF });
    expect(planText(planned)).toContain('privateKey = (write-only, from $NEOFLOW_SIGNER_COLD)');
    expect(planText(planned)).not.toContain(key.WIF);
  });

  it('refuses a key written in the file, and an automation naming a signer nobody holds', async () => {
    await expect(
      planOf(withSigners(`  - { name: cold, type: import, privateKey: "${'11'.repeat(32)}" }\n`, 'cold')),
    ).rejects.toThrow(/signers\[0\]\.privateKey: must be \{env: NAME\} or \{file: PATH\}/);
    await expect(planOf(withSigners('', 'nobody').replace('signers:\n', ''))).rejects.toThrow(
      /automation by-default signs with nobody, which neither the file nor the account holds/,
    );
  });
});

describe('export and apply by a key that may not read signers (made before they existed)', () => {
  const unread: AccountState = { ...state, signers: null };

  it("exports no signers and keeps each automation's signer id, which applies back unchanged", async () => {
    const text = await exportFile(unread, { codeDir: undefined });
    expect(text).not.toContain('signers:');
    expect(text).toContain('signer: sgn_default');
    expect(text).toContain('signer: sgn_ops');
    const planned = planChanges(await loadNeoflowFile(await fileOf(text), {}), unread, options);
    expect(planned.changes).toEqual([]);
  });

  it('plans a file with signers as a problem naming the scope, not a failed read', async () => {
    const text = `version: 1\nsigners:\n  - { name: ops, type: generated }\n`;
    const file = await loadNeoflowFile(await fileOf(text), {});
    expect(() => planChanges(file, unread, options)).toThrow(
      /signer ops: this key may not read the account's signers \(it lacks signers:read\)/,
    );
  });
});

import { wallet } from '@cityofzion/neon-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seal } from '../../src/crypto/envelope.ts';
import { sealContexts } from '../../src/crypto/seal-contexts.ts';
import { openSealedSigner } from '../../src/signers/default-signer.ts';
import { Signer } from '../../src/signers/signer.entity.ts';
import { withPublicKey } from '../../src/signers/signers.service.ts';
import { migrate } from '../../src/orm.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';

// Migration 0032: every account's one signer (account_signers) becomes its `default` signer, the
// automations that send name it, and what the account spent is that signer's.
let db: TestDatabase;
const masterKeys = { current: Buffer.alloc(32, 7), previous: [] };
const key = new wallet.Account(wallet.generatePrivateKey());

const execute = (sql: string, params: unknown[] = []) => db.orm.em.getConnection().execute(sql, params);

const insertAutomation = (id: string, action: object) =>
  execute(
    `insert into "automations" ("id", "account_id", "name", "network", "status", "trigger_type", "trigger", "action", "created_at", "updated_at")
      values (?, 'acct_a', 'n', 'default', 'active', 'schedule', '{"type":"schedule","cron":"@yearly"}', ?, now(), now())`,
    [id, JSON.stringify(action)],
  );

beforeAll(async () => {
  db = await createTestDatabase({ migrated: false });
  await db.orm.migrator.up({ to: '0031-cursor-network-names' });
  await execute(`insert into "accounts" values ('acct_a', 'a', now(), now()), ('acct_b', 'b', now(), now())`);
  const sealed = seal(key.WIF, sealContexts.signer('acct_a'), masterKeys);
  await execute(`insert into "account_signers" values ('acct_a', ?, ?, ?, ?, ?, now())`, [
    key.address,
    `0x${key.scriptHash}`,
    Buffer.from(sealed.ciphertext),
    Buffer.from(sealed.wrappedKey),
    sealed.masterKeyId,
  ]);
  await insertAutomation('auto_contract', {
    type: 'contract',
    scriptHash: `0x${'1'.repeat(40)}`,
    operation: 'o',
    args: [],
  });
  await insertAutomation('auto_decides', {
    type: 'function',
    functionId: 'func_x',
    parameters: {},
    execute: { allowedContracts: [`0x${'1'.repeat(40)}`], maxCalls: 4 },
  });
  await insertAutomation('auto_function', { type: 'function', functionId: 'func_x', parameters: {} });
  await insertAutomation('auto_webhook', { type: 'webhook', url: 'https://example.com/hook' });
  await execute(
    `insert into "account_gas_spend" ("account_id", "network", "day", "today", "total") values ('acct_a', 'default', now(), 5, 9)`,
  );
  expect(await migrate(db.orm)).toContain('0032-signers');
});
afterAll(() => db?.drop());

describe('migration 0032 (signers)', () => {
  it("makes the account's signer its `default` signer, generated, with the same address and a seal that still opens", async () => {
    const signers = await db.orm.em.fork().find(Signer, {});
    expect(signers).toHaveLength(1);
    const [signer] = signers;
    expect(signer).toMatchObject({
      name: 'default',
      type: 'generated',
      address: key.address,
      scriptHash: `0x${key.scriptHash}`,
      publicKey: null,
      backend: null,
      budget: null,
    });
    expect(signer!.id).toMatch(/^sgn_[A-Za-z0-9_-]{24}$/);
    expect(openSealedSigner(signer!, masterKeys)).toBe(key.WIF);
    expect(await execute(`select to_regclass('account_signers') as "table"`)).toEqual([{ table: null }]);
  });

  it('names the default signer in the automations that send, and no signer in those that do not, their actions unchanged', async () => {
    const [signer] = await execute(`select "id" from "signers"`);
    const actions = await execute(
      `select "action"->>'type' as "type", "action" ? 'signer' as "named" from "automations"`,
    );
    expect(actions.filter((row) => row.named)).toEqual([]);
    expect(actions).toHaveLength(4);
    const rows = await execute(`select "id", "signer_id" from "automations" order by "id"`);
    expect(rows).toEqual([
      { id: 'auto_contract', signer_id: signer!.id },
      { id: 'auto_decides', signer_id: signer!.id },
      { id: 'auto_function', signer_id: null },
      { id: 'auto_webhook', signer_id: null },
    ]);
  });

  it('learns the public key of a migrated signer from its seal, once, when the API first shows it', async () => {
    const em = db.orm.em.fork();
    const signer = await em.findOneOrFail(Signer, { name: 'default' });
    expect((await withPublicKey(em, masterKeys, signer)).publicKey).toBe(key.publicKey);
    expect(await execute(`select "public_key" from "signers"`)).toEqual([{ public_key: key.publicKey }]);
    // Stored already: a reader without the master key is not asked to open the seal again.
    const again = await db.orm.em.fork().findOneOrFail(Signer, { name: 'default' });
    expect((await withPublicKey(em, { current: Buffer.alloc(32, 1), previous: [] }, again)).publicKey).toBe(
      key.publicKey,
    );
  });

  it("counts what the account spent as its default signer's", async () => {
    const [signer] = await execute(`select "id" from "signers"`);
    expect(await execute(`select "account_id", "network", "signer_id", "total" from "account_gas_spend"`)).toEqual([
      { account_id: 'acct_a', network: 'default', signer_id: signer!.id, total: '9' },
    ]);
  });
});

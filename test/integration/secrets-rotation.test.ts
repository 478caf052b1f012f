import { randomBytes } from 'node:crypto';
import { wallet } from '@cityofzion/neon-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSigner } from '../../src/signers/default-signer.ts';
import { Signer } from '../../src/signers/signer.entity.ts';
import { keyId } from '../../src/crypto/key-id.ts';
import { open, seal } from '../../src/crypto/envelope.ts';
import { readValue } from '../../src/functions/storage/storage-store.ts';
import { putStorageValue } from '../../src/functions/storage/storage.service.ts';
import { rotateMasterKey } from '../../src/cli/rotate-master.ts';
import { revealSecrets } from '../../src/secrets/secret-store.ts';
import { SecretVersion } from '../../src/secrets/secret.entity.ts';
import { createSecret, updateSecret } from '../../src/secrets/secrets.service.ts';
import { cliActor } from '../../src/audit/actor.ts';
import { neoflow } from '../support/cli.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { storeFunction } from '../support/function-rows.ts';
import { issueKey, uniqueAccountName } from '../support/keys.ts';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(() => db.drop());

const oldKey = randomBytes(32);
const newKey = randomBytes(32);
const oldMasters = { current: oldKey, previous: [] };
// Rotation covers the whole database: every account of this file is sealed under the old key.
const issueOldKey = () => issueKey(db.orm, ['*'], uniqueAccountName('rot'), oldMasters);

describe('secret store and master key rotation', () => {
  it('reveals only the newest value of the names asked for, within the account', async () => {
    const { accountId } = await issueOldKey();
    const secret = await createSecret(db.orm.em.fork(), oldMasters, cliActor(accountId), { name: 'FEED', value: 'v1' });
    await updateSecret(db.orm.em.fork(), oldMasters, cliActor(accountId), secret.id, { value: 'v2' });
    await createSecret(db.orm.em.fork(), oldMasters, cliActor(accountId), { name: 'OTHER', value: 'x' });
    const foreign = await issueOldKey();
    await createSecret(db.orm.em.fork(), oldMasters, cliActor(foreign.accountId), { name: 'FEED', value: 'theirs' });

    const revealed = await revealSecrets(db.orm.em.fork(), oldMasters, accountId, ['FEED', 'MISSING']);
    expect(revealed).toEqual([{ name: 'FEED', value: 'v2', version: 2 }]);
  });

  it('`neoflow secrets rotate-master` re-wraps every data key, of secrets and signers, so the old key can go', async () => {
    const { accountId, signer } = await issueOldKey();
    const names = Array.from({ length: 5 }, (_, index) => `ROTATE_${index}`);
    for (const name of names) {
      await createSecret(db.orm.em.fork(), oldMasters, cliActor(accountId), { name, value: `value-${name}` });
    }
    const result = await neoflow(['secrets', 'rotate-master'], {
      DATABASE_URL: db.url,
      NEOFLOW_MASTER_KEY: newKey.toString('base64'),
      NEOFLOW_PREVIOUS_MASTER_KEYS: oldKey.toString('base64'),
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/re-wrapped \d+ data keys under master key [0-9a-f]{16}/);

    const stale = { masterKeyId: { $ne: keyId(newKey) } };
    expect(await db.orm.em.fork().count(SecretVersion, stale)).toBe(0);
    expect(await db.orm.em.fork().count(Signer, stale)).toBe(0);
    const onlyNew = { current: newKey, previous: [] };
    const revealed = await revealSecrets(db.orm.em.fork(), onlyNew, accountId, names);
    expect(revealed.map((secret) => secret.value).sort()).toEqual(names.map((name) => `value-${name}`));
    const wif = await openSigner(db.orm.em.fork(), onlyNew, accountId);
    expect(new wallet.Account(wif).address).toBe(signer.address);
  });

  it('pages each table by its primary key, past one batch, and counts again that nothing is left under the old key', async () => {
    const { accountId } = await issueOldKey();
    const fn = await storeFunction(db.orm, accountId, 'rotated-results');
    const sealed = seal('a result', 'execution-result', oldMasters);
    const many = 450;
    const connection = db.orm.em.getConnection();
    await connection.execute(
      `insert into "executions" ("id", "function_id", "account_id", "status", "params", "logs", "trigger", "secrets_read", "started_at")
       select 'exec_rot_' || lpad(n::text, 4, '0'), ?, ?, 'completed', '{}', '[]', '{"type":"api"}', '[]', now()
       from generate_series(1, ?) as n`,
      [fn.id, accountId, many],
    );
    await connection.execute(
      `insert into "execution_results" ("execution_id", "ciphertext", "wrapped_key", "master_key_id")
       select 'exec_rot_' || lpad(n::text, 4, '0'), ?, ?, ? from generate_series(1, ?) as n`,
      [Buffer.from(sealed.ciphertext), Buffer.from(sealed.wrappedKey), sealed.masterKeyId, many],
    );
    await connection.execute(
      `insert into "idempotent_requests" ("account_id", "key", "request_hash", "claimed_at", "answered", "ciphertext", "wrapped_key", "master_key_id")
       select ?, 'rot-' || n, repeat('0', 64), now(), true, ?, ?, ? from generate_series(1, ?) as n`,
      [accountId, Buffer.from(sealed.ciphertext), Buffer.from(sealed.wrappedKey), sealed.masterKeyId, many],
    );
    const masters = { current: newKey, previous: [oldKey] };

    const rotation = await rotateMasterKey(db.orm.em.fork(), masters);
    expect(rotation.left).toBe(0);
    expect(rotation.rewrapped).toBeGreaterThanOrEqual(2 * many);
    expect(await rotateMasterKey(db.orm.em.fork(), masters)).toEqual({ rewrapped: 0, left: 0 });

    const [row] = await connection.execute<{ ciphertext: Buffer; wrapped_key: Buffer; master_key_id: string }[]>(
      `select "ciphertext", "wrapped_key", "master_key_id" from "execution_results" where "execution_id" = 'exec_rot_0321'`,
    );
    const rewrapped = { ciphertext: row!.ciphertext, wrappedKey: row!.wrapped_key, masterKeyId: row!.master_key_id };
    expect(open(rewrapped, 'execution-result', { current: newKey, previous: [] })).toBe('a result');
  });

  it("re-wraps the values of functions' storage too, which open under the new key alone", async () => {
    const { accountId } = await issueOldKey();
    const fn = await storeFunction(db.orm, accountId, 'rotated-storage');
    for (const key of ['a', 'b/c']) {
      await putStorageValue(db.orm.em.fork(), oldMasters, fn.id, key, { value: { kept: key } });
    }
    const rotation = await rotateMasterKey(db.orm.em.fork(), { current: newKey, previous: [oldKey] });
    expect(rotation.left).toBe(0);
    const onlyNew = { current: newKey, previous: [] };
    expect(await readValue(db.orm.em.fork(), onlyNew, fn.id, 'b/c')).toMatchObject({
      value: { kept: 'b/c' },
      version: 1,
    });
  });
});

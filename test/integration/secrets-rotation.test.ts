import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { masterKeyId } from '../../src/secrets/envelope.ts';
import { revealSecrets } from '../../src/secrets/secret-store.ts';
import { SecretVersion } from '../../src/secrets/secret.entity.ts';
import { createSecret, updateSecret } from '../../src/secrets/secrets.service.ts';
import { neoflow } from '../support/cli.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { issueKey } from '../support/keys.ts';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(() => db.drop());

const oldKey = randomBytes(32);
const newKey = randomBytes(32);

describe('secret store and master key rotation', () => {
  it('reveals only the newest value of the names asked for, within the account', async () => {
    const { accountId } = await issueKey(db.orm);
    const masters = { current: oldKey, previous: [] };
    const secret = await createSecret(db.orm.em.fork(), masters, accountId, { name: 'FEED', value: 'v1' });
    await updateSecret(db.orm.em.fork(), masters, accountId, secret.id, { value: 'v2' });
    await createSecret(db.orm.em.fork(), masters, accountId, { name: 'OTHER', value: 'x' });
    const foreign = await issueKey(db.orm);
    await createSecret(db.orm.em.fork(), masters, foreign.accountId, { name: 'FEED', value: 'theirs' });

    const revealed = await revealSecrets(db.orm.em.fork(), masters, accountId, ['FEED', 'MISSING']);
    expect(revealed).toEqual([{ name: 'FEED', value: 'v2', version: 2 }]);
  });

  it('`neoflow secrets rotate-master` re-wraps every data key so the old key can be dropped', async () => {
    const { accountId } = await issueKey(db.orm);
    const names = Array.from({ length: 5 }, (_, index) => `ROTATE_${index}`);
    for (const name of names) {
      await createSecret(db.orm.em.fork(), { current: oldKey, previous: [] }, accountId, {
        name,
        value: `value-${name}`,
      });
    }
    const result = await neoflow(['secrets', 'rotate-master'], {
      DATABASE_URL: db.url,
      NEOFLOW_MASTER_KEY: newKey.toString('base64'),
      NEOFLOW_PREVIOUS_MASTER_KEYS: oldKey.toString('base64'),
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/re-wrapped \d+ data keys under master key [0-9a-f]{16}/);

    const stale = await db.orm.em.fork().count(SecretVersion, { masterKeyId: { $ne: masterKeyId(newKey) } });
    expect(stale).toBe(0);
    const onlyNew = { current: newKey, previous: [] };
    const revealed = await revealSecrets(db.orm.em.fork(), onlyNew, accountId, names);
    expect(revealed.map((secret) => secret.value).sort()).toEqual(names.map((name) => `value-${name}`));
  });
});

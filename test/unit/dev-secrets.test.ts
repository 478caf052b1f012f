import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { withDevSecrets } from '../../src/dev-secrets.ts';
import { receiptKeysOf } from '../../src/receipts/receipt-keys.ts';

const dataDir = () => mkdtempSync(join(tmpdir(), 'neoflow-devsecrets-'));

describe('development secrets', () => {
  it('are created once by `up`, private to the user, and shared by every later process', () => {
    const dir = dataDir();
    const first = withDevSecrets({ NEOFLOW_DATA_DIR: dir }, { create: true });
    const later = withDevSecrets({ NEOFLOW_DATA_DIR: dir }, { create: false });
    expect(later.NEOFLOW_MASTER_KEY).toBe(first.NEOFLOW_MASTER_KEY);
    expect(statSync(join(dir, 'dev-secrets.json')).mode & 0o777).toBe(0o600);
    expect(loadConfig(later).secrets.masterKey).toHaveLength(32);
  });

  it("include a receipt key, so a local stack signs every execution's receipt as a deployment does", () => {
    const dir = dataDir();
    const config = loadConfig(withDevSecrets({ NEOFLOW_DATA_DIR: dir }, { create: true }));
    const { active, listed } = receiptKeysOf(config);
    expect(active).toBeDefined();
    expect(listed).toEqual([{ id: active!.id, publicKey: active!.publicKey.toString('hex'), status: 'active' }]);
    // Kept: every later process (the API, the worker, `neoflow receipts verify`) signs and checks with the same one.
    const later = loadConfig(withDevSecrets({ NEOFLOW_DATA_DIR: dir }, { create: false }));
    expect(receiptKeysOf(later).active!.id).toBe(active!.id);
  });

  it('made before the receipt key get one at the next `up`, their other values kept', () => {
    const dir = dataDir();
    const file = join(dir, 'dev-secrets.json');
    const first = withDevSecrets({ NEOFLOW_DATA_DIR: dir }, { create: true });
    const older = JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>;
    delete older.NEOFLOW_RECEIPT_KEY;
    writeFileSync(file, JSON.stringify(older));
    // A command other than `up` writes nothing: the stack runs unsigned until its next `up`.
    expect(withDevSecrets({ NEOFLOW_DATA_DIR: dir }, { create: false }).NEOFLOW_RECEIPT_KEY).toBeUndefined();
    const upAgain = withDevSecrets({ NEOFLOW_DATA_DIR: dir }, { create: true });
    expect(upAgain.NEOFLOW_MASTER_KEY).toBe(first.NEOFLOW_MASTER_KEY);
    expect(upAgain.NEOFLOW_OPERATOR_TOKEN).toBe(first.NEOFLOW_OPERATOR_TOKEN);
    expect(upAgain.NEOFLOW_RECEIPT_KEY).toMatch(/^[0-9a-f]{64}$/);
    expect(withDevSecrets({ NEOFLOW_DATA_DIR: dir }, { create: false }).NEOFLOW_RECEIPT_KEY).toBe(
      upAgain.NEOFLOW_RECEIPT_KEY,
    );
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it('never override a variable that is set', () => {
    const key = Buffer.alloc(32, 1).toString('base64');
    const env = withDevSecrets({ NEOFLOW_DATA_DIR: dataDir(), NEOFLOW_MASTER_KEY: key }, { create: true });
    expect(env.NEOFLOW_MASTER_KEY).toBe(key);
  });

  it('are neither read nor written in production', () => {
    const env = { NEOFLOW_ENV: 'production', NEOFLOW_DATA_DIR: dataDir() };
    expect(withDevSecrets(env, { create: true })).toBe(env);
  });
});

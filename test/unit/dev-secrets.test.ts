import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { withDevSecrets } from '../../src/dev-secrets.ts';

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

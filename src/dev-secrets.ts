import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { variables as settings } from './config.ts';
import { newReceiptPrivateKey } from './receipt-settings.ts';

const variables = {
  NEOFLOW_MASTER_KEY: () => randomBytes(32).toString('base64'),
  NEOFLOW_PAYLOAD_KEY: () => randomBytes(32).toString('base64'),
  NEOFLOW_OPERATOR_TOKEN: () => randomBytes(24).toString('base64url'),
  // So that a local stack signs every execution's receipt, as a deployment with its own key does.
  NEOFLOW_RECEIPT_KEY: newReceiptPrivateKey,
};

type DevSecrets = Record<keyof typeof variables, string>;

/**
 * Outside production, the keys a developer did not set come from `<data dir>/dev-secrets.json`,
 * which `neoflow up` creates once (mode 0600), so every process of a local stack, and the CLI
 * beside it, share them. A file from before a variable was added gets it at the next `up`, its
 * other values kept. Production never reads or writes the file: it must set the variables.
 */
export function withDevSecrets(env: NodeJS.ProcessEnv, options: { create: boolean }): NodeJS.ProcessEnv {
  if (env.NEOFLOW_ENV === 'production') return env;
  // Read before the configuration, which needs these secrets; the data dir's default is the schema's.
  const dataDir = settings.NEOFLOW_DATA_DIR.parse(env.NEOFLOW_DATA_DIR || undefined);
  const file = join(resolve(dataDir), 'dev-secrets.json');
  const read = readDevSecrets(file);
  const stored = options.create ? completeDevSecrets(file, read) : read;
  if (!stored) return env;
  const filled = { ...env };
  for (const name of Object.keys(variables) as (keyof DevSecrets)[]) {
    const value = stored[name];
    if (!filled[name] && value) filled[name] = value;
  }
  return filled;
}

function readDevSecrets(file: string): Partial<DevSecrets> | undefined {
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Partial<DevSecrets>) : undefined;
}

/** The stored values and any missing one made now, written back if anything was made. */
function completeDevSecrets(file: string, stored: Partial<DevSecrets> | undefined): DevSecrets {
  const missing = (Object.keys(variables) as (keyof DevSecrets)[]).filter((name) => !stored?.[name]);
  const made = Object.fromEntries(missing.map((name) => [name, variables[name]()]));
  const secrets = { ...stored, ...made } as DevSecrets;
  if (missing.length === 0) return secrets;
  mkdirSync(join(file, '..'), { recursive: true });
  // A new file is created private (and never over one made meanwhile); an older one keeps its mode.
  writeFileSync(file, `${JSON.stringify(secrets, null, 2)}\n`, { mode: 0o600, flag: stored ? 'w' : 'wx' });
  return secrets;
}

import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { variables as settings } from './config.ts';

const variables = {
  NEOFLOW_MASTER_KEY: () => randomBytes(32).toString('base64'),
  NEOFLOW_PAYLOAD_KEY: () => randomBytes(32).toString('base64'),
  NEOFLOW_OPERATOR_TOKEN: () => randomBytes(24).toString('base64url'),
};

type DevSecrets = Record<keyof typeof variables, string>;

/**
 * Outside production, the keys a developer did not set come from `<data dir>/dev-secrets.json`,
 * which `neoflow up` creates once (mode 0600), so every process of a local stack, and the CLI
 * beside it, share them. Production never reads or writes the file: it must set the variables.
 */
export function withDevSecrets(env: NodeJS.ProcessEnv, options: { create: boolean }): NodeJS.ProcessEnv {
  if (env.NEOFLOW_ENV === 'production') return env;
  // Read before the configuration, which needs these secrets; the data dir's default is the schema's.
  const dataDir = settings.NEOFLOW_DATA_DIR.parse(env.NEOFLOW_DATA_DIR || undefined);
  const file = join(resolve(dataDir), 'dev-secrets.json');
  const stored = readDevSecrets(file) ?? (options.create ? createDevSecrets(file) : undefined);
  if (!stored) return env;
  const filled = { ...env };
  for (const name of Object.keys(variables) as (keyof DevSecrets)[]) filled[name] ||= stored[name];
  return filled;
}

function readDevSecrets(file: string): DevSecrets | undefined {
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as DevSecrets) : undefined;
}

function createDevSecrets(file: string): DevSecrets {
  const secrets = Object.fromEntries(Object.entries(variables).map(([name, make]) => [name, make()])) as DevSecrets;
  mkdirSync(join(file, '..'), { recursive: true });
  writeFileSync(file, `${JSON.stringify(secrets, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
  return secrets;
}

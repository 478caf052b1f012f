import type { Config } from '../config.ts';
import { apiOf, expectStatus, listAll, type Api } from './api-client.ts';
import type { KeysOptions } from './options.ts';

interface ListedKey {
  id: string;
  name: string | null;
  prefix: string;
  role: string | null;
  scopes: string[];
  createdAt: string;
  lastUsedAt: string | null;
  expiresAt: string | null;
}

/**
 * `neoflow keys create|list|revoke` through the API with NEOFLOW_API_KEY (a key holding
 * `keys:admin`): what a team member runs from anywhere, scoped by their own key and recorded by the
 * API. The server's database path (src/cli/keys.ts) stays for an account's first key.
 */
export async function keysOverApi(config: Config, [action, keyId]: string[], options: KeysOptions) {
  const api = apiOf(config, `keys ${action}`, 'keys:admin');
  switch (action) {
    case 'create':
      return createOverApi(api, options);
    case 'list':
      return listOverApi(api);
    case 'revoke':
      if (!keyId) throw new Error('missing <keyId>');
      await expectStatus(api('DELETE', `/v1/keys/${encodeURIComponent(keyId)}`), 200, `revoke ${keyId}`);
      process.stdout.write(`revoked ${keyId}\n`);
      return;
    default:
      throw new Error('usage: neoflow keys create|list|revoke (see neoflow --help)');
  }
}

async function createOverApi(api: Api, { name, role, scopes, expiresAt }: KeysOptions) {
  if (!name) throw new Error('missing --name <name>: a key made through the API is named');
  if ((role === undefined) === (scopes === undefined)) throw new Error('give exactly one of --role and --scopes');
  const body = {
    name,
    ...(role === undefined ? { scopes: scopes!.split(',').map((scope) => scope.trim()) } : { role }),
    ...(expiresAt === undefined ? {} : { expiresAt }),
  };
  const created = (await expectStatus(api('POST', '/v1/keys', body), 201, 'create a key')) as unknown as ListedKey & {
    key: string;
  };
  process.stdout.write(`key id ${created.id}, ${describeGrant(created)}, ${describeExpiry(created)}\n`);
  process.stdout.write('the key is shown once; store it now:\n');
  process.stdout.write(`${created.key}\n`);
}

async function listOverApi(api: Api) {
  const keys = await listAll<ListedKey>(api, '/v1/keys', (body) => body.keys);
  if (keys.length === 0) process.stdout.write('no keys\n');
  for (const key of keys) {
    const used = key.lastUsedAt ? `last used ${key.lastUsedAt}` : 'never used';
    process.stdout.write(
      `${key.id}  ${key.prefix}  ${key.name ?? '(unnamed)'}  ${describeGrant(key)}  created ${key.createdAt}  ${used}  ${describeExpiry(key)}\n`,
    );
  }
}

function describeGrant(key: Pick<ListedKey, 'role' | 'scopes'>): string {
  return key.role ? `role ${key.role}` : `scopes ${key.scopes.join(',')}`;
}

function describeExpiry(key: Pick<ListedKey, 'expiresAt'>): string {
  return key.expiresAt ? `expires ${key.expiresAt}` : 'no expiry';
}

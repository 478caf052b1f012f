import type { Config } from '../config.ts';
import { createKey, listKeys, revokeKey } from '../auth/keys.service.ts';
import { parseScopes, scopes } from '../auth/scopes.ts';
import { withCliOrm } from './database.ts';
import type { Options } from './commands.ts';

const allScopes = scopes.filter((scope) => scope !== '*').join(',');

export async function keysCommand(config: Config, [action, keyId]: string[], options: Options) {
  switch (action) {
    case 'create': {
      const account = required(options.account, '--account <name>');
      const keyScopes = parseScopes(options.scopes ?? allScopes);
      const created = await withCliOrm(config, (orm) => createKey(orm.em.fork(), account, keyScopes));
      process.stdout.write(
        `account ${account} (${created.accountId})\nkey id ${created.keyId}, scopes ${keyScopes.join(',')}\n`,
      );
      process.stdout.write('the key is shown once; store it now:\n');
      process.stdout.write(`${created.key}\n`);
      return;
    }
    case 'list': {
      const account = required(options.account, '--account <name>');
      const keys = await withCliOrm(config, (orm) => listKeys(orm.em.fork(), account));
      for (const key of keys) {
        const state = key.revokedAt ? `revoked ${key.revokedAt.toISOString()}` : 'active';
        process.stdout.write(
          `${key.id}  ${key.hint}  ${state}  created ${key.createdAt.toISOString()}  ${key.scopes.join(',')}\n`,
        );
      }
      if (keys.length === 0) process.stdout.write(`no keys for account ${account}\n`);
      return;
    }
    case 'revoke': {
      const id = required(keyId, '<keyId>');
      if (!(await withCliOrm(config, (orm) => revokeKey(orm.em.fork(), id)))) throw new Error(`no key with id ${id}`);
      process.stdout.write(`revoked ${id}\n`);
      return;
    }
    default:
      throw new Error('usage: neoflow keys create|list|revoke (see neoflow --help)');
  }
}

function required(value: string | undefined, what: string): string {
  if (!value) throw new Error(`missing ${what}`);
  return value;
}

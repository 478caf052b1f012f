import { randomBytes } from 'node:crypto';

export type IdPrefix =
  'acct' | 'key' | 'func' | 'exec' | 'auto' | 'sec' | 'run' | 'ntf' | 'req' | 'ping' | 'rpl' | 'sgn' | 'ses';

/** `<prefix>_` and 24 url-safe random characters (144 bits): not guessable, not sequential. */
export function newId(prefix: IdPrefix): string {
  return `${prefix}_${randomBytes(18).toString('base64url')}`;
}

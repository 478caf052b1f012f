import { randomFillSync } from 'node:crypto';

export type IdPrefix =
  'acct' | 'key' | 'func' | 'exec' | 'auto' | 'sec' | 'run' | 'ntf' | 'req' | 'ping' | 'rpl' | 'sgn' | 'ses';

const idBytes = 18;
/**
 * Random bytes for the next 256 ids, from the CSPRNG at once: a call into it for each id took
 * 5 µs, twice all else the API does to refuse a hook request (whose answer mints its id).
 */
const pool = Buffer.alloc(idBytes * 256);
let taken = pool.length;

/** `<prefix>_` and 24 url-safe random characters (144 bits): not guessable, not sequential. */
export function newId(prefix: IdPrefix): string {
  if (taken === pool.length) {
    randomFillSync(pool);
    taken = 0;
  }
  const id = pool.toString('base64url', taken, taken + idBytes);
  taken += idBytes;
  return `${prefix}_${id}`;
}

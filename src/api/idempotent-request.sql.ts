import type { EntityManager } from '@mikro-orm/postgresql';
import type { Sealed } from '../crypto/envelope.ts';

/** The statements of the `idempotent_requests` table: each key's claim and the answer it keeps, sealed. */

/** A claim this old was left by a process that died mid-request: longer than any answer takes. */
const abandonedAfter = '6 minutes';
/** Stripe's semantics: a key names one request of one account for a day. */
const keptFor = '24 hours';

/**
 * Claims the key (new, expired, or abandoned by a process that died), dropping the account's
 * expired keys on the way (found by the (account_id, claimed_at) index); otherwise answers what
 * holds it.
 */
export const claimSql = `
with "expired" as (
  delete from "idempotent_requests"
  where "account_id" = ? and "key" <> ? and "claimed_at" < now() - interval '${keptFor}'
)
insert into "idempotent_requests" ("account_id", "key", "request_hash", "claimed_at")
values (?, ?, ?, now())
on conflict ("account_id", "key") do update
  set "request_hash" = excluded."request_hash", "claimed_at" = now(), "answered" = false,
      "ciphertext" = null, "wrapped_key" = null, "master_key_id" = null
  where "idempotent_requests"."claimed_at" < now() - interval '${keptFor}'
     or (not "idempotent_requests"."answered" and "idempotent_requests"."claimed_at" < now() - interval '${abandonedAfter}')
returning 1`;

interface Holder {
  requestHash: string;
  sealed: Sealed | undefined;
}

export async function claim(em: EntityManager, accountId: string, key: string, requestHash: string) {
  const connection = em.getConnection();
  const claimed = await connection.execute<unknown[]>(claimSql, [accountId, key, accountId, key, requestHash]);
  if (claimed.length === 1) return 'claimed' as const;
  const [row] = await connection.execute<
    { request_hash: string; ciphertext: Buffer | null; wrapped_key: Buffer | null; master_key_id: string | null }[]
  >(
    `select "request_hash", "ciphertext", "wrapped_key", "master_key_id" from "idempotent_requests"
      where "account_id" = ? and "key" = ?`,
    [accountId, key],
  );
  // Released between the two statements: the key is free again, and this request may claim it.
  if (!row) return claim(em, accountId, key, requestHash);
  const sealed =
    row.ciphertext && row.wrapped_key && row.master_key_id
      ? { ciphertext: row.ciphertext, wrappedKey: row.wrapped_key, masterKeyId: row.master_key_id }
      : undefined;
  return { requestHash: row.request_hash, sealed } satisfies Holder;
}

export async function keep(em: EntityManager, accountId: string, key: string, sealed: Sealed) {
  await em.getConnection().execute(
    `update "idempotent_requests" set "answered" = true, "ciphertext" = ?, "wrapped_key" = ?, "master_key_id" = ?
      where "account_id" = ? and "key" = ?`,
    [Buffer.from(sealed.ciphertext), Buffer.from(sealed.wrappedKey), sealed.masterKeyId, accountId, key],
    'run',
  );
}

export async function release(em: EntityManager, accountId: string, key: string) {
  await em
    .getConnection()
    .execute(`delete from "idempotent_requests" where "account_id" = ? and "key" = ?`, [accountId, key], 'run');
}

import { createHash } from 'node:crypto';
import type { Middleware } from 'koa';
import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError, invalidRequest } from '../errors.ts';
import { open, seal, type MasterKeys, type Sealed } from '../crypto/envelope.ts';
import { sealContexts } from '../crypto/seal-contexts.ts';
import { areaOf, errorBody } from './areas.ts';
import type { Caller } from '../auth/admission.ts';

/** Stripe's semantics: a key names one request of one account for a day. */
const keyPattern = /^[\x21-\x7e]{1,255}$/;
/** A claim this old was left by a process that died mid-request: longer than any answer takes. */
const abandonedAfter = '6 minutes';
const keptFor = '24 hours';

interface Stored {
  status: number;
  body: unknown;
}

/**
 * Makes a create or an invoke safe to repeat: with an `Idempotency-Key` header, the first request
 * claims the key and its answer is kept (sealed: an invoke's answer may hold what the code read
 * from a secret) for 24 hours. The same key with the same request answers that again, without
 * running anything (`Idempotent-Replayed: true`); with another request, or while the first is
 * still being answered, it answers 409 in the area's shape. A request refused as invalid, over a
 * limit for now (429), or one that failed on our side, keeps nothing: the client fixes or retries
 * it under the same key.
 */
export function idempotent(services: { em: () => EntityManager; masterKeys: MasterKeys }): Middleware {
  return async (ctx, next) => {
    const key = ctx.get('Idempotency-Key');
    if (!key) {
      await next();
      return;
    }
    if (!keyPattern.test(key)) throw invalidRequest('Idempotency-Key must be 1 to 255 visible ASCII characters.');
    const { accountId } = ctx.state.caller as Caller;
    // The query is part of the request: a retry's `?version=latest` runs other code.
    const requestHash = hashRequest(ctx.method, ctx.url, ctx.request.body);
    const em = services.em();
    const earlier = await claim(em, accountId, key, requestHash);
    const context = sealContexts.idempotentAnswer(accountId, key);
    if (earlier === 'claimed') {
      try {
        await next();
      } catch (thrown) {
        if (thrown instanceof AppError && !passing(thrown)) {
          const answer = { status: thrown.status, body: errorBody(areaOf(ctx.path), thrown) };
          await keep(em, accountId, key, seal(JSON.stringify(answer), context, services.masterKeys));
        } else await release(em, accountId, key);
        throw thrown;
      }
      const answer: Stored = { status: ctx.status, body: ctx.body as unknown };
      await keep(em, accountId, key, seal(JSON.stringify(answer), context, services.masterKeys));
      return;
    }
    if (earlier.requestHash !== requestHash) {
      throw new AppError('conflict', 'This Idempotency-Key was already used with another request.', {
        idempotencyKey: key,
      });
    }
    if (!earlier.sealed) {
      throw new AppError('conflict', 'A request with this Idempotency-Key is still being answered; retry shortly.', {
        idempotencyKey: key,
      });
    }
    const stored = JSON.parse(open(earlier.sealed, context, services.masterKeys)) as Stored;
    ctx.status = stored.status;
    ctx.body = stored.body;
    ctx.set('Idempotent-Replayed', 'true');
  };
}

/**
 * Invalid, over a limit for now (429), refused until a transaction settles, or failed on our
 * side: the same request may do better later.
 */
const passing = (thrown: AppError) =>
  thrown.code === 'invalid_request' ||
  thrown.code === 'internal_error' ||
  thrown.code === 'transaction_pending' ||
  thrown.status === 429;

/** The method, the path (ids included) and the body, whatever the order of its fields. */
function hashRequest(method: string, path: string, body: unknown): string {
  return createHash('sha256')
    .update(JSON.stringify([method, path, canonical(body)]))
    .digest('hex');
}

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((name) => [name, canonical((value as Record<string, unknown>)[name])]),
  );
}

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

async function claim(em: EntityManager, accountId: string, key: string, requestHash: string) {
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

async function keep(em: EntityManager, accountId: string, key: string, sealed: Sealed) {
  await em.getConnection().execute(
    `update "idempotent_requests" set "answered" = true, "ciphertext" = ?, "wrapped_key" = ?, "master_key_id" = ?
      where "account_id" = ? and "key" = ?`,
    [Buffer.from(sealed.ciphertext), Buffer.from(sealed.wrappedKey), sealed.masterKeyId, accountId, key],
    'run',
  );
}

async function release(em: EntityManager, accountId: string, key: string) {
  await em
    .getConnection()
    .execute(`delete from "idempotent_requests" where "account_id" = ? and "key" = ?`, [accountId, key], 'run');
}

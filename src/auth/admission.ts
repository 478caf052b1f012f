import type { EntityManager } from '@mikro-orm/postgresql';
import { decide, type Decision } from '../ratelimit/decision.ts';
import { storedRate, type Rate } from '../ratelimit/rate.ts';
import { takeTokenFromRate } from '../ratelimit/token-bucket.ts';
import { hashKey, looksLikeKey, sameHash } from './key-material.ts';

/** Who calls: the key a request presented, and its account. */
export interface Caller {
  accountId: string;
  keyId: string;
  scopes: readonly string[];
}

/** A request let in by its key: who calls, at which rate (its own or the default), and what its bucket said. */
export interface Admission {
  caller: Caller;
  rate: Rate;
  decision: Decision;
}

interface AdmissionRow {
  id: string;
  account_id: string;
  hash: string;
  scopes: string[];
  rate_requests: number | null;
  rate_window_seconds: number | null;
  allowed: boolean;
  tokens: number;
}

/**
 * The key (unrevoked) and a token from its bucket, in one statement: every authenticated request
 * pays one round trip for both. The rate is the key's own (`--rate`, both columns set, as
 * `storedRate` reads them) or the default.
 */
const admitSql = `
with "key" as (
  select "id", "account_id", "hash", "scopes", "rate_requests", "rate_window_seconds"
  from "api_keys" where "hash" = ? and "revoked_at" is null
), "rate" ("key_id", "capacity", "window") as (
  select "id",
    case when "rate_requests" > 0 and "rate_window_seconds" > 0 then "rate_requests" else ? end::float8,
    case when "rate_requests" > 0 and "rate_window_seconds" > 0 then "rate_window_seconds" else ? end::float8
  from "key"
), "taken" as (${takeTokenFromRate})
select "key".*, "taken"."allowed", "taken"."tokens" from "key" join "taken" on "taken"."key_id" = "key"."id"`;

/** Null for a malformed, unknown or revoked key (no token is taken for those). */
export async function admit(em: EntityManager, presented: string, defaultRate: Rate): Promise<Admission | null> {
  if (!looksLikeKey(presented)) return null;
  const hash = hashKey(presented);
  const rows = await em
    .getConnection()
    .execute<AdmissionRow[]>(admitSql, [hash, defaultRate.requests, defaultRate.windowSeconds]);
  const row = rows[0];
  if (!row || !sameHash(row.hash, hash)) return null;
  const own = storedRate(row.rate_requests, row.rate_window_seconds);
  const rate = own ?? defaultRate;
  return {
    caller: { accountId: row.account_id, keyId: row.id, scopes: row.scopes },
    rate,
    decision: decide(rate, row.allowed, row.tokens),
  };
}

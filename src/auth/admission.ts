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
  /** The row `alongside` asked for, as JSON; null when the key's account has no such row. */
  owned?: Record<string, unknown> | null;
}

/** Tables whose rows an admission can read alongside: each has `id` and `account_id`. */
export type OwnedTable = 'functions';

/** A row of the caller's account to read in the admission's own statement, by id. */
export interface OwnedRead {
  table: OwnedTable;
  id: string;
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
  owned?: Record<string, unknown> | null;
}

/**
 * The key (unrevoked) and a token from its bucket, in one statement: every authenticated request
 * pays one round trip for both. The rate is the key's own (`--rate`, both columns set, as
 * `storedRate` reads them) or the default. `alongside` adds columns to the answer.
 */
const admitSql = (alongside = '') => `
with "key" as (
  select "id", "account_id", "hash", "scopes", "rate_requests", "rate_window_seconds"
  from "api_keys" where "hash" = ? and "revoked_at" is null
), "rate" ("key_id", "capacity", "window") as (
  select "id",
    case when "rate_requests" > 0 and "rate_window_seconds" > 0 then "rate_requests" else ? end::float8,
    case when "rate_requests" > 0 and "rate_window_seconds" > 0 then "rate_window_seconds" else ? end::float8
  from "key"
), "taken" as (${takeTokenFromRate})
select "key".*, "taken"."allowed", "taken"."tokens"${alongside} from "key" join "taken" on "taken"."key_id" = "key"."id"`;

const plainAdmitSql = admitSql();

/** The row only if the key's account owns it: another account's id reads as a missing one. */
const ownedReadSql = (table: OwnedTable) =>
  admitSql(`,
  (select row_to_json("owned") from "${table}" "owned" where "owned"."id" = ? and "owned"."account_id" = "key"."account_id") as "owned"`);

const admitAndReadSql: Record<OwnedTable, string> = { functions: ownedReadSql('functions') };

/**
 * Null for a malformed, unknown or revoked key (no token is taken for those). `alongside` reads a
 * row of the key's account in the same statement, so that a route that needs it first (an invoke,
 * its function) needs no round trip of its own.
 */
export async function admit(
  em: EntityManager,
  presented: string,
  defaultRate: Rate,
  alongside?: OwnedRead,
): Promise<Admission | null> {
  if (!looksLikeKey(presented)) return null;
  const hash = hashKey(presented);
  const parameters = [hash, defaultRate.requests, defaultRate.windowSeconds];
  const rows = await em
    .getConnection()
    .execute<AdmissionRow[]>(
      alongside ? admitAndReadSql[alongside.table] : plainAdmitSql,
      alongside ? [...parameters, alongside.id] : parameters,
    );
  const row = rows[0];
  if (!row || !sameHash(row.hash, hash)) return null;
  const own = storedRate(row.rate_requests, row.rate_window_seconds);
  const rate = own ?? defaultRate;
  return {
    caller: { accountId: row.account_id, keyId: row.id, scopes: row.scopes },
    rate,
    decision: decide(rate, row.allowed, row.tokens),
    ...(alongside && { owned: row.owned ?? null }),
  };
}

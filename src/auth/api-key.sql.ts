import type { EntityManager } from '@mikro-orm/postgresql';
import type { Rate } from '../ratelimit/rate.ts';
import { takeTokenFromRate } from '../ratelimit/rate-limit-bucket.sql.ts';

/** The hand-written statements of the `api_keys` table. */

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
  name: string | null;
  role: string | null;
  hash: string;
  scopes: string[];
  rate_requests: number | null;
  rate_window_seconds: number | null;
  allowed: boolean;
  tokens: number;
  owned?: Record<string, unknown> | null;
}

/**
 * The key (unrevoked, unexpired) and a token from its bucket, in one statement: every authenticated
 * request pays one round trip for both. No key is cached anywhere, so a revocation holds for the
 * next request of every API process. The rate is the key's own (`--rate`, both columns set, as
 * `storedRate` reads them) or the default. `last_used_at` moves at most once a minute a key.
 * `alongside` adds columns to the answer.
 */
const admitSql = (alongside = '') => `
with "key" as (
  select "id", "account_id", "name", "role", "hash", "scopes", "rate_requests", "rate_window_seconds", "last_used_at"
  from "api_keys"
  where "hash" = ? and "revoked_at" is null and ("expires_at" is null or "expires_at" > clock_timestamp())
), "used" as (
  update "api_keys" set "last_used_at" = clock_timestamp()
  where "id" = (select "id" from "key" where "last_used_at" is null or "last_used_at" < clock_timestamp() - interval '1 minute')
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

/** The unrevoked key of `hash` with a token taken from its bucket (and the row `alongside` asks for). */
export async function admissionRow(
  em: EntityManager,
  hash: string,
  defaultRate: Rate,
  alongside?: OwnedRead,
): Promise<AdmissionRow | undefined> {
  const parameters = [hash, defaultRate.requests, defaultRate.windowSeconds];
  const rows = await em
    .getConnection()
    .execute<AdmissionRow[]>(
      alongside ? admitAndReadSql[alongside.table] : plainAdmitSql,
      alongside ? [...parameters, alongside.id] : parameters,
    );
  return rows[0];
}

/** Taken before a key of the account is revoked: two revocations never both leave it without a manager. */
const lockAccountKeysSql = `select pg_advisory_xact_lock(hashtextextended('api_keys:' || ?, 0))`;

/** Usable now: neither revoked nor expired. */
const usable = `"revoked_at" is null and ("expires_at" is null or "expires_at" > clock_timestamp())`;

const othersUsableSql = `select
    count(*) filter (where "scopes" && array['*', 'keys:admin']::text[])::int as "managers",
    count(*) filter (where "scopes" @> array['*']::text[])::int as "owners"
  from "api_keys" where "account_id" = ? and "id" <> ? and ${usable}`;

/** The account's other usable keys that may manage keys, and those of them that hold `*`. */
export async function otherUsableKeys(
  tx: EntityManager,
  accountId: string,
  keyId: string,
): Promise<{ managers: number; owners: number }> {
  await tx.execute(lockAccountKeysSql, [accountId]);
  const [row] = await tx.execute<{ managers: number; owners: number }[]>(othersUsableSql, [accountId, keyId]);
  return row!;
}

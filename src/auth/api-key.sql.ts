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

export interface AdmissionRow {
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
  /** Set when a console session presented the key. */
  session_id: string | null;
}

/** Usable now: neither revoked nor expired. */
const usable = `"revoked_at" is null and ("expires_at" is null or "expires_at" > clock_timestamp())`;

/** The columns of the presented key the admission answers; `hash` is what the presented secret hashes to. */
const keyColumns = (table: string) =>
  ['id', 'account_id', 'name', 'role', 'scopes', 'rate_requests', 'rate_window_seconds', 'last_used_at']
    .map((column) => `${table}."${column}"`)
    .join(', ');

/** The key of a presented key's hash. */
const keyOfHash = `select ${keyColumns('"api_keys"')}, "hash", null::text as "session_id" from "api_keys" where "hash" = ? and ${usable}`;

/**
 * The key of a console session's token hash: the session neither idle longer than the given
 * seconds nor past its end, and its key usable, so that a revoked key's sessions end with it.
 */
const keyOfSession = `select ${keyColumns('"session_key"')}, "session"."token_hash" as "hash", "session"."id" as "session_id"
  from "console_sessions" "session" join "api_keys" "session_key" on "session_key"."id" = "session"."key_id"
  where "session"."token_hash" = ?
    and "session"."last_seen_at" > clock_timestamp() - make_interval(secs => ?)
    and "session"."expires_at" > clock_timestamp()
    and "session_key"."revoked_at" is null and ("session_key"."expires_at" is null or "session_key"."expires_at" > clock_timestamp())`;

/** A session's use moves its idle clock, at most once every 10 s a session. */
const seenSession = `, "seen" as (
  update "console_sessions" set "last_seen_at" = clock_timestamp()
  where "id" = (select "session_id" from "key") and "last_seen_at" < clock_timestamp() - interval '10 seconds'
)`;

/**
 * The key (unrevoked, unexpired) and a token from its bucket, in one statement: every authenticated
 * request pays one round trip for both. No key is cached anywhere, so a revocation holds for the
 * next request of every API process. The rate is the key's own (`--rate`, both columns set, as
 * `storedRate` reads them) or the default. `last_used_at` moves at most once a minute a key.
 * `alongside` adds columns to the answer.
 */
const admitSql = (keyOf: string, alongside = '') => `
with "key" as (${keyOf})${keyOf === keyOfSession ? seenSession : ''}, "used" as (
  update "api_keys" set "last_used_at" = clock_timestamp()
  where "id" = (select "id" from "key" where "last_used_at" is null or "last_used_at" < clock_timestamp() - interval '1 minute')
), "rate" ("key_id", "capacity", "window") as (
  select "id",
    case when "rate_requests" > 0 and "rate_window_seconds" > 0 then "rate_requests" else ? end::float8,
    case when "rate_requests" > 0 and "rate_window_seconds" > 0 then "rate_window_seconds" else ? end::float8
  from "key"
), "taken" as (${takeTokenFromRate})
select "key".*, "taken"."allowed", "taken"."tokens"${alongside} from "key" join "taken" on "taken"."key_id" = "key"."id"`;

const plainAdmitSql = admitSql(keyOfHash);
const sessionAdmitSql = admitSql(keyOfSession);

/** The row only if the key's account owns it: another account's id reads as a missing one. */
const ownedReadSql = (table: OwnedTable) =>
  admitSql(
    keyOfHash,
    `,
  (select row_to_json("owned") from "${table}" "owned" where "owned"."id" = ? and "owned"."account_id" = "key"."account_id") as "owned"`,
  );

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

/**
 * The key of a live console session whose token hashes to `tokenHash`, with a token taken from the
 * key's own bucket: a session spends its key's rate, as the key would.
 */
export async function sessionAdmissionRow(
  em: EntityManager,
  tokenHash: string,
  idleSeconds: number,
  defaultRate: Rate,
): Promise<AdmissionRow | undefined> {
  const rows = await em
    .getConnection()
    .execute<AdmissionRow[]>(sessionAdmitSql, [
      tokenHash,
      idleSeconds,
      defaultRate.requests,
      defaultRate.windowSeconds,
    ]);
  return rows[0];
}

/** Taken before a key of the account is revoked: two revocations never both leave it without a manager. */
const lockAccountKeysSql = `select pg_advisory_xact_lock(hashtextextended('api_keys:' || ?, 0))`;

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

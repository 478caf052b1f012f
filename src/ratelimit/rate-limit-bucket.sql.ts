import type { EntityManager } from '@mikro-orm/postgresql';
import { decide, type Decision } from './decision.ts';
import type { Rate } from './rate.ts';

/**
 * One statement takes a token: the insert creates a full bucket (less this request) on a key's
 * first request; afterwards the conflict update runs under the row lock, so concurrent requests
 * from any number of API processes queue on the row and each sees its predecessor's result.
 * Refill is `elapsed × capacity / window`, capped at capacity, on the database clock so every
 * process agrees. A statement that waited for the lock read the clock before a later statement
 * stored its own: elapsed time is clamped at zero and `refilled_at` never moves back, so such
 * reordering can only withhold tokens, never mint them. The statement takes its key and rate from
 * a `"rate" ("key_id", "capacity", "window")` named before it, so that admission can find the key
 * and take its token in one round trip. `table`: the buckets' table, the API keys' by default; the
 * hooks have theirs (`takeRates` in src/automations/hooks/hooks.control.ts).
 */
export const takeTokenFromRate = bucketStatement('rate_limit_buckets');

function bucketStatement(table: string) {
  return `
insert into "${table}" as "bucket" ("key_id", "tokens", "refilled_at", "allowed")
select "key_id", "capacity" - 1, clock_timestamp(), true from "rate"
on conflict ("key_id") do update set ("tokens", "refilled_at", "allowed") = (
  select
    case when "available" >= 1 then "available" - 1 else "available" end,
    greatest("bucket"."refilled_at", excluded."refilled_at"),
    "available" >= 1
  from (
    select least(
      "capacity",
      "bucket"."tokens" + "capacity" / "window"
        * greatest(0, extract(epoch from excluded."refilled_at" - "bucket"."refilled_at")::float8)
    ) as "available"
    from "rate"
  ) as "refill"
)
returning "key_id", "allowed", "tokens"`;
}

const rateValues = `with "rate" ("key_id", "capacity", "window") as (values (?::varchar, ?::float8, ?::float8))`;
const takeTokenSql = `${rateValues}${takeTokenFromRate}`;

/** Spends one of the key's tokens if it has one; either way, says what the client may do next. */
export async function takeToken(em: EntityManager, keyId: string, rate: Rate): Promise<Decision> {
  return take(em, takeTokenSql, keyId, rate);
}

const takeHookTokenSql = `${rateValues}${bucketStatement('hook_rate_buckets')}`;

/** `takeToken` from a hook's bucket (`automation:<id>`, `account:<id>`), kept apart from the API keys'. */
export async function takeHookToken(em: EntityManager, bucket: string, rate: Rate): Promise<Decision> {
  return take(em, takeHookTokenSql, bucket, rate);
}

async function take(em: EntityManager, sql: string, keyId: string, rate: Rate): Promise<Decision> {
  const row = await em
    .getConnection()
    .execute<{ allowed: boolean; tokens: number }>(sql, [keyId, rate.requests, rate.windowSeconds], 'get');
  return decide(rate, row.allowed, row.tokens);
}

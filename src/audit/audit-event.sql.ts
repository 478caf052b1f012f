import type { EntityManager } from '@mikro-orm/postgresql';
import { auditEventsWritten } from '../metrics/metrics.ts';
import type { AuditSummary } from './summary.ts';
import type { AuditRecord } from './audit.ts';
import { jsonbParam } from '../db/jsonb-param.ts';

/** The hand-written statements of the `audit_events` table (migration 0034). */

export interface AuditEventRow {
  id: string;
  cursor_at: string;
  occurred_at: Date;
  actor_type: string;
  actor_key_id: string | null;
  actor_name: string | null;
  actor_role: string | null;
  actor_scopes: string[] | null;
  request_id: string | null;
  ip: string | null;
  user_agent: string | null;
  action: string;
  resource_type: string;
  resource_id: string;
  summary: AuditSummary;
}

/** Where a page ends: the last event's time in microseconds since 1970 (exact) and its id. */
export interface AuditKeyset {
  at: string;
  id: string;
}

interface AuditFilters {
  actor?: string;
  action?: string;
  resourceType?: string;
  resourceId?: string;
  since?: Date;
  until?: Date;
}

const columns = `"id"::text as "id", (extract(epoch from "occurred_at") * 1000000)::bigint::text as "cursor_at", "occurred_at", "actor_type", "actor_key_id",
  "actor_name", "actor_role", "actor_scopes", "request_id", "ip", "user_agent", "action", "resource_type",
  "resource_id", "summary"`;

const recordColumns = `"account_id", "occurred_at", "actor_type", "actor_key_id", "actor_name", "actor_role",
  "actor_scopes", "request_id", "ip", "user_agent", "action", "resource_type", "resource_id", "summary"`;

/**
 * `statement` (one insert, update or delete) with the insert of `record` before it, as one
 * statement: the change and its event commit together, in one round trip. Its values come first.
 */
export function withAuditEvent(statement: string, record: AuditRecord): { sql: string; values: unknown[] } {
  return {
    sql: `with "audited" as (insert into "audit_events" (${recordColumns})
      values (?, ?, ?, ?, ?, ?, ?::text[], ?, ?, ?, ?, ?, ?, ?::jsonb)) ${statement}`,
    values: [
      record.accountId,
      record.occurredAt,
      record.actorType,
      record.actorKeyId,
      record.actorName,
      record.actorRole,
      record.actorScopes,
      record.requestId,
      record.ip,
      record.userAgent,
      record.action,
      record.resourceType,
      record.resourceId,
      jsonbParam(record.summary),
    ],
  };
}

/**
 * A page of the account's events, newest first, after `keyset`: the order of the index
 * (`account_id`, `occurred_at` desc, `id` desc), so a page costs its own rows whatever the depth.
 */
export async function auditPage(
  em: EntityManager,
  accountId: string,
  filters: AuditFilters,
  keyset: AuditKeyset | null,
  limit: number,
): Promise<AuditEventRow[]> {
  const where = ['"account_id" = ?'];
  const values: unknown[] = [accountId];
  const add = (condition: string, ...given: unknown[]) => {
    where.push(condition);
    values.push(...given);
  };
  if (filters.actor !== undefined) add('"actor_key_id" = ?', filters.actor);
  if (filters.action !== undefined) add('"action" = ?', filters.action);
  if (filters.resourceType !== undefined) add('"resource_type" = ?', filters.resourceType);
  if (filters.resourceId !== undefined) add('"resource_id" = ?', filters.resourceId);
  if (filters.since !== undefined) add('"occurred_at" >= ?', filters.since);
  if (filters.until !== undefined) add('"occurred_at" < ?', filters.until);
  if (keyset) {
    add(
      `("occurred_at", "id") < ('epoch'::timestamptz + ?::bigint * interval '1 microsecond', ?::bigint)`,
      keyset.at,
      keyset.id,
    );
  }
  return em.execute<AuditEventRow[]>(
    `select ${columns} from "audit_events" where ${where.join(' and ')}
     order by "occurred_at" desc, "id" desc limit ?`,
    [...values, limit],
  );
}

/**
 * Deletes up to `limit` events older than `before`, the oldest first, and says how many: the
 * only delete the table's trigger lets through, by the flag this transaction alone sets.
 */
export function purgeAuditEvents(em: EntityManager, before: Date, limit: number): Promise<number> {
  return em.transactional(async (tx) => {
    await tx.execute(`select set_config('neoflow.audit_purge', 'on', true)`);
    const rows = await tx.execute<{ id: string }[]>(
      `delete from "audit_events" where "id" in (
         select "id" from "audit_events" where "occurred_at" < ? order by "occurred_at" limit ?
       ) returning "id"`,
      [before, limit],
    );
    return rows.length;
  });
}

/** The minute a bounded event counts in: at most one event per dedupe key and minute. */
const thisMinute = `to_char(date_trunc('minute', clock_timestamp()), 'YYYYMMDDHH24MI')`;

/** Where a request came from: its id, address and user agent, bounded to their columns. */
export interface Origin {
  requestId: string | null;
  ip: string | null;
  userAgent: string | null;
}

const originValues = (origin: Origin) => [
  origin.requestId?.slice(0, 128) ?? null,
  origin.ip?.slice(0, 64) ?? null,
  origin.userAgent?.slice(0, 256) ?? null,
];

/**
 * A refused key's event, at most one a minute per key: in the account of a key revoked or
 * expired (found by its hash), otherwise in no account (operators read those in SQL), at most
 * one a minute for each of `unknownBuckets` buckets of prefixes, so that a flood of made-up keys
 * writes at most that many rows a minute. `prefix` is the key's first characters, never more.
 */
export async function recordRefusedKey(
  em: EntityManager,
  refused: { hash: string | null; prefix: string | null; bucket: number },
  origin: Origin,
): Promise<void> {
  const rows = await em.execute<{ id: string }[]>(
    `with "known" as (
       select "id", "account_id",
         case when "revoked_at" is not null then 'revoked' when "expires_at" <= clock_timestamp() then 'expired'
           else 'refused' end as "reason"
       from "api_keys" where "hash" = ?
     )
     insert into "audit_events" ("account_id", "actor_type", "actor_key_id", "request_id", "ip", "user_agent",
       "action", "resource_type", "resource_id", "summary", "dedupe_key")
     select "known"."account_id", 'anonymous', null, ?, ?, ?, 'auth.refused', 'key',
       coalesce("known"."id", ?),
       jsonb_build_object('values', jsonb_strip_nulls(jsonb_build_object('prefix', ?::text,
         'reason', coalesce("known"."reason", 'unknown')))),
       'auth.refused:' || coalesce("known"."id", 'unknown:' || ?) || ':' || ${thisMinute}
     from (select 1) as "one" left join "known" on true
     on conflict ("dedupe_key") where "dedupe_key" is not null do nothing
     returning "id"`,
    [refused.hash, ...originValues(origin), refused.prefix ?? 'malformed', refused.prefix, refused.bucket],
  );
  if (rows.length > 0) auditEventsWritten.inc({ action: 'auth.refused' });
}

/** An operator's decode through the codec: at most one event a minute per address. */
export async function recordCodecDecode(
  em: EntityManager,
  decode: { payloads: number; credential: 'token' | 'capability' },
  origin: Origin,
): Promise<void> {
  const [, ip] = originValues(origin);
  const rows = await em.execute<{ id: string }[]>(
    `insert into "audit_events" ("account_id", "actor_type", "request_id", "ip", "user_agent", "action",
       "resource_type", "resource_id", "summary", "dedupe_key")
     values (null, 'operator', ?, ?, ?, 'codec.decode', 'codec', 'decode',
       jsonb_build_object('values', jsonb_build_object('payloads', ?::int, 'credential', ?::text)),
       'codec.decode:' || coalesce(?, '') || ':' || ${thisMinute})
     on conflict ("dedupe_key") where "dedupe_key" is not null do nothing
     returning "id"`,
    [...originValues(origin), decode.payloads, decode.credential, ip],
  );
  if (rows.length > 0) auditEventsWritten.inc({ action: 'codec.decode' });
}

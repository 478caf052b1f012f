import type { EntityManager } from '@mikro-orm/postgresql';
import { executeBound } from '../../db/bound-statement.ts';
import type { AutomationStatus } from '../model/automation-statuses.ts';
import type { Trigger } from '../model/trigger.schemas.ts';
import type { RunStatus } from '../../shared/outcomes.ts';

/** The statements of the `automation_hooks` table: a webhook automation's path and token hash. */

export async function insertHook(
  em: EntityManager,
  hook: { automationId: string; accountId: string; path: string; tokenHash: Buffer | null },
) {
  await executeBound(
    em,
    `insert into "automation_hooks" ("automation_id", "account_id", "path", "token_hash") values (?, ?, ?, ?)`,
    [hook.automationId, hook.accountId, hook.path, hook.tokenHash],
  );
}

/** The automation's hook path; undefined when it has none. */
export async function hookPathOf(em: EntityManager, automationId: string): Promise<string | undefined> {
  const [row] = await em.execute<{ path: string }[]>(
    `select "path" from "automation_hooks" where "automation_id" = ?`,
    [automationId],
  );
  return row?.path;
}

/** Replaces the token's hash: the old token is refused by the next request. */
export async function setHookToken(em: EntityManager, automationId: string, tokenHash: Buffer | null) {
  await executeBound(em, `update "automation_hooks" set "token_hash" = ? where "automation_id" = ?`, [
    tokenHash,
    automationId,
  ]);
}

export async function deleteHook(em: EntityManager, automationId: string) {
  await em.execute(`delete from "automation_hooks" where "automation_id" = ?`, [automationId]);
}

/** A hook as a request to its path finds it, with the sealed HMAC key its trigger names (if any). */
export interface FoundHook {
  automation_id: string;
  account_id: string;
  token_hash: Buffer | null;
  status: AutomationStatus;
  trigger: Trigger;
  secret_id: string | null;
  secret_version: number | null;
  ciphertext: Buffer | null;
  wrapped_key: Buffer | null;
  master_key_id: string | null;
}

/**
 * The hook, its automation and the newest value of the secret its HMAC names, in one statement:
 * a request costs the same round trip whether its path exists or not.
 */
const findHookSql = `select h."automation_id", h."account_id", h."token_hash", a."status", a."trigger",
  s."id" as "secret_id", v."version" as "secret_version", v."ciphertext", v."wrapped_key", v."master_key_id"
from "automation_hooks" h
join "automations" a on a."id" = h."automation_id"
left join "secrets" s on s."account_id" = h."account_id" and s."name" = a."trigger"->'auth'->>'secret'
left join "secret_versions" v on v."secret_id" = s."id" and v."version" = s."version"
where h."path" = ?`;

export async function findHook(em: EntityManager, path: string): Promise<FoundHook | undefined> {
  const { rows } = await executeBound<FoundHook>(em, findHookSql, [path]);
  return rows[0];
}

/**
 * A key older than 24 hours names a delivery no more: its run keeps its record under a fire key
 * of its own, so that the key fires anew. Under the key's row lock, as the insert that follows.
 */
export async function expireHookKey(em: EntityManager, automationId: string, fireKey: string) {
  await em.execute(
    `update "automation_runs" set "fire_key" = "fire_key" || ':' || "id"
     where "automation_id" = ? and "fire_key" = ? and "started_at" < now() - interval '24 hours'`,
    [automationId, fireKey],
  );
}

/** What a hook answers of its run: as recorded, the first time or a repeat. */
export async function hookRun(em: EntityManager, runId: string) {
  const [row] = await em.execute<{ id: string; status: RunStatus; started_at: Date | string }[]>(
    `select "id", "status", "started_at" from "automation_runs" where "id" = ?`,
    [runId],
  );
  return { id: row!.id, status: row!.status, startedAt: new Date(row!.started_at).toISOString() };
}

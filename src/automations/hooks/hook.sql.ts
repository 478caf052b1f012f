import type { EntityManager } from '@mikro-orm/postgresql';
import { executeBound } from '../../db/bound-statement.ts';
import { jsonbParam } from '../../db/jsonb-param.ts';
import type { AutomationStatus } from '../model/automation-statuses.ts';
import type { FirePayload } from '../model/run.entity.ts';
import type { Trigger } from '../model/trigger.schemas.ts';
import { runStatus, type RunStatus } from '../../shared/outcomes.ts';

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

/**
 * A delivery's run, recorded only while what admitted it holds, in one statement with that check:
 * the automation active, the hook's token hash and the trigger's auth the ones the request was
 * admitted by. Both rows are locked for the statement (FOR SHARE): a pause, a delete or a rotation
 * committed since the hook was found is what the check reads (a row changed since the statement
 * began is read again as it is now before it is locked), and one that commits later waits for
 * this statement: no run is recorded after a pause, a delete or a rotation commits. The function
 * the action runs is read with them: the run's workflow is started labelled with it.
 */
const recordHookRunSql = `with "hook" as (
  select a."id", a."account_id", a."network", a."status",
    h."token_hash" is not distinct from ?::bytea and a."trigger"->'auth' = ?::jsonb as "admitted",
    (select f."id" from "functions" f where a."action"->>'type' = 'function'
      and f."id" = a."action"->>'functionId' and f."account_id" = a."account_id") as "function_id"
  from "automations" a join "automation_hooks" h on h."automation_id" = a."id"
  where a."id" = ?
  for share of a, h
), "recorded" as (
  insert into "automation_runs"
    ("id", "automation_id", "account_id", "fire_key", "status", "trigger", "retry_of", "dispatched", "started_at",
     "network")
  select ?, "id", "account_id", ?, '${runStatus.running}', ?, null, false, now(), "network" from "hook"
  where "status" = 'active' and "admitted"
  on conflict ("automation_id", "fire_key") do nothing
  returning "id"
)
select "hook"."status", "hook"."admitted", "recorded"."id", "hook"."function_id"
from "hook" left join "recorded" on true`;

/**
 * What recording a delivery found: `gone`, the hook (or its automation) deleted since it was found;
 * `refused`, its token or auth changed; `inactive`, the automation not active; else the run this
 * call recorded (`id`), or none when the delivery's key had recorded one before.
 */
type HookRecording =
  | { outcome: 'gone' | 'refused' }
  | { outcome: 'inactive'; status: AutomationStatus }
  | { outcome: 'recorded'; id: string; functionId: string | null }
  | { outcome: 'repeated' };

export async function recordHookRun(
  em: EntityManager,
  found: Pick<FoundHook, 'automation_id' | 'token_hash' | 'trigger'>,
  run: { id: string; fireKey: string; payload: FirePayload },
): Promise<HookRecording> {
  const auth = jsonbParam(found.trigger.type === 'webhook' ? found.trigger.auth : null);
  const params = [found.token_hash, auth, found.automation_id, run.id, run.fireKey, jsonbParam(run.payload)];
  const { rows } = await executeBound<{
    status: AutomationStatus;
    admitted: boolean | null;
    id: string | null;
    function_id: string | null;
  }>(em, recordHookRunSql, params);
  const [row] = rows;
  if (!row) return { outcome: 'gone' };
  if (!row.admitted) return { outcome: 'refused' };
  if (row.status !== 'active') return { outcome: 'inactive', status: row.status };
  return row.id === null ? { outcome: 'repeated' } : { outcome: 'recorded', id: row.id, functionId: row.function_id };
}

/** What a hook answers of its run: as recorded, the first time or a repeat. */
export async function hookRun(em: EntityManager, runId: string) {
  const [row] = await em.execute<{ id: string; status: RunStatus; started_at: Date | string }[]>(
    `select "id", "status", "started_at" from "automation_runs" where "id" = ?`,
    [runId],
  );
  return { id: row!.id, status: row!.status, startedAt: new Date(row!.started_at).toISOString() };
}

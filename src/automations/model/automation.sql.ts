import type { EntityManager } from '@mikro-orm/postgresql';
import { executeBound } from '../../db/bound-statement.ts';
import { jsonbParam } from '../../db/jsonb-param.ts';
import { blockTriggerTypes } from './state-trigger-kinds.ts';
import type { Automation } from './automation.entity.ts';
import type { FollowedTrigger, ScheduleTrigger, StateTrigger } from './trigger.schemas.ts';
import type { AutomationStatus } from './automation-statuses.ts';
import type { Action } from './action.schemas.ts';
import type { Sealed } from '../../crypto/envelope.ts';

/** The hand-written statements of the `automations` table (its updates and deletes go through the ORM). */

/**
 * A credential sealed for its place (`path`) in its automation, to be stored with it (the
 * credentials capability seals it; this is the ground's statement that stores it).
 */
export interface SealedCredential extends Sealed {
  path: string;
}

/** The SQLSTATE count_automations (migration 0025) refuses an insert past the account's limit with. */
const limitReachedState = 'NF409';

/**
 * A new automation and its sealed credentials, inserted in one statement that names the account's
 * limit for the count PostgreSQL keeps (migration 0025): the insert's increment takes the
 * account's count row, so that racing creates count one another, and refuses the row past the
 * limit. One round trip, where a transaction counting the account's automations took five.
 */
const insertAutomationSql = `
with "limited" as (select set_config('neoflow.automations_per_account', ?, true) as "most"),
"made" as (
  insert into "automations" ("id", "account_id", "name", "network", "status", "trigger_type", "trigger", "action",
      "function_id", "signer_id", "watch_from_block", "price_source", "error_details", "notify", "gas_below", "budget",
      "created_by_key_id", "changed_by_key_id", "created_at", "updated_at")
    values (?, ?, ?, ?, ?, ?, ?::jsonb, ?::jsonb, ?, ?, ?, ?, null, ?::jsonb, ?::jsonb, ?::jsonb, ?, ?, ?, ?)
    returning "id"
), "sealed" as (
  insert into "automation_credentials" ("automation_id", "path", "ciphertext", "wrapped_key", "master_key_id")
    select "made"."id", "credential".* from "made",
      unnest(?::text[], ?::bytea[], ?::bytea[], ?::text[]) as "credential"
)
select "most" from "limited", "made"`;

/**
 * Inserts `automation` (made with `persist: false`, its credentials sealed by sealNewCredentials)
 * unless its account already has `limit` automations: false then, and nothing is stored.
 */
export async function insertAutomation(
  em: EntityManager,
  automation: Automation,
  sealed: SealedCredential[],
  limit: number,
): Promise<boolean> {
  const json = (value: unknown) => (value === undefined ? null : jsonbParam(value));
  const bytes = (value: Uint8Array) => Buffer.from(value.buffer, value.byteOffset, value.byteLength);
  try {
    await executeBound(em, insertAutomationSql, [
      String(limit),
      automation.id,
      automation.account.id,
      automation.name,
      automation.network,
      automation.status,
      automation.triggerType,
      json(automation.trigger),
      json(automation.action),
      automation.functionId ?? null,
      automation.signerId ?? null,
      automation.watchFromBlock ?? null,
      automation.priceSource ?? null,
      json(automation.notify),
      json(automation.gasBelow),
      json(automation.budget),
      automation.createdByKeyId ?? null,
      automation.changedByKeyId ?? null,
      automation.createdAt,
      automation.updatedAt,
      sealed.map(({ path }) => path),
      sealed.map(({ ciphertext }) => bytes(ciphertext)),
      sealed.map(({ wrappedKey }) => bytes(wrappedKey)),
      sealed.map(({ masterKeyId }) => masterKeyId),
    ]);
    return true;
  } catch (error) {
    if ((error as { code?: string }).code === limitReachedState) return false;
    throw error;
  }
}

/**
 * The account of the automation if it was active at `at`: active now, or changed since (a fire
 * scheduled before the row last changed counts); undefined otherwise, or once it is deleted.
 */
export async function accountIfActiveAt(em: EntityManager, automationId: string, at: Date) {
  const [automation] = (
    await executeBound<{ account_id: string }>(
      em,
      `select "account_id" from "automations" where "id" = ? and ("status" = 'active' or "updated_at" > ?)`,
      [automationId, at],
    )
  ).rows;
  return automation?.account_id;
}

/**
 * The first block an active blockchain or transaction trigger of `network` (its name) watches
 * from; null when none does.
 */
export async function firstWatchedBlock(em: EntityManager, network: string): Promise<number | null> {
  const [armed] = await em.execute<{ first: number | null }[]>(
    `select min("watch_from_block") as "first" from "automations"
      where "status" = 'active' and "trigger_type" in ('blockchain', 'transaction') and "network" = ?`,
    [network],
  );
  return armed?.first ?? null;
}

/**
 * Whether an active automation of `network` (its name) watches blocks (`blockTriggerTypes`): the
 * reconciler's pass asks whether that network's follower must run, which the first entry of the
 * index of active automations by type and network answers; counted, PostgreSQL read every
 * watcher's entry each pass (4,000 at 10k). One statement per network, its name a value the
 * planner sees: asked of all at once, it read the other networks' watchers too.
 */
export const watchingBlocksSql = `select exists(
    select 1 from "automations"
      where "network" = ? and "status" = 'active' and "trigger_type" = any(?::text[])
  ) as "watching"`;

/** Which of the networks named (the configured ones) an active automation watches blocks of. */
export async function networksWatchingBlocks(em: EntityManager, networks: string[]): Promise<string[]> {
  const watched: string[] = [];
  for (const network of networks) {
    const { rows } = await executeBound<{ watching: boolean }>(em, watchingBlocksSql, [network, blockTriggerTypes]);
    if (rows[0]?.watching === true) watched.push(network);
  }
  return watched;
}

/** Every active blockchain or transaction automation of `network` that watches from a block, as a plain row. */
export async function activeWatcherRows(em: EntityManager, network: string) {
  return em.execute<{ id: string; account_id: string; trigger: FollowedTrigger; watch_from_block: number | null }[]>(
    `select "id", "account_id", "trigger", "watch_from_block" from "automations"
      where "status" = 'active' and "trigger_type" in ('blockchain', 'transaction') and "network" = ?
        and "watch_from_block" is not null`,
    [network],
  );
}

/** The change counter of the watchers (migration 0024) as text; null without its row. */
export async function watcherChangesVersion(em: EntityManager): Promise<string | null> {
  const [row] = await em.execute<{ version: string }[]>(`select "version" from "watcher_changes" where "id" = 1`);
  return row?.version ?? null;
}

/**
 * An active state trigger's row as the follower reads it each block: its mark (null columns: none
 * written yet) and `version`, the row's transaction id, which any change of the row moves; the
 * trigger itself is read only when that moved (stateTriggersOf).
 */
export interface StateRow {
  id: string;
  account_id: string;
  version: string;
  watch_from_block: number | null;
  condition_key: string | null;
  armed: boolean | null;
  last_value: string | null;
  evaluated_block: number | null;
  failing: boolean | null;
}

/** Every active state trigger's row and mark of `network`, without the trigger: a few dozen bytes each. */
export async function activeStateRows(em: EntityManager, network: string): Promise<StateRow[]> {
  return em.execute<StateRow[]>(
    `select a."id", a."account_id", a."xmin"::text as "version", a."watch_from_block",
        m."condition_key", m."armed", m."last_value", m."evaluated_block", m."failing"
      from "automations" a left join "state_trigger_marks" m on m."automation_id" = a."id"
      where a."status" = 'active' and a."trigger_type" = 'state' and a."network" = ?`,
    [network],
  );
}

/** A state trigger as stored, its row's version and its digest (PostgreSQL's md5 of its jsonb text). */
interface StoredStateTrigger {
  id: string;
  version: string;
  trigger: StateTrigger;
  digest: string;
}

/** The state triggers of `ids` that are still state triggers. */
export async function stateTriggersOf(em: EntityManager, ids: string[]): Promise<StoredStateTrigger[]> {
  const { rows } = await executeBound<StoredStateTrigger>(
    em,
    `select "id", "xmin"::text as "version", "trigger", md5("trigger"::text) as "digest"
      from "automations" where "id" = any(?::text[]) and "trigger_type" = 'state'`,
    [ids],
  );
  return rows;
}

/** The last block followed for the automation while it was active; null: none was. */
export async function followedUntil(em: EntityManager, automationId: string): Promise<number | null> {
  const [row] = await em.execute<{ followed_until: number | null }[]>(
    `select "followed_until" from "automations" where "id" = ?`,
    [automationId],
  );
  return row?.followed_until ?? null;
}

/** A schedule automation as the reconciler converges it: what its schedule is written from. */
interface ScheduleRow {
  id: string;
  account: { id: string };
  status: AutomationStatus;
  triggerType: 'schedule';
  trigger: ScheduleTrigger;
  /** Its fires are labelled with the function it runs (schedule-options.control.ts). */
  action: Action;
  updatedAt: Date;
}

/**
 * A page of the schedule automations by id, after `after`, as plain rows: read into entities, a
 * pass at 3,000 schedules spent ~120–200 ms of the worker's CPU hydrating them (issue 34).
 */
export async function scheduleRowsPage(em: EntityManager, after: string, limit: number): Promise<ScheduleRow[]> {
  const { rows } = await executeBound<{
    id: string;
    account_id: string;
    status: AutomationStatus;
    trigger: ScheduleTrigger;
    action: Action;
    updated_at: Date | string;
  }>(
    em,
    `select "id", "account_id", "status", "trigger", "action", "updated_at" from "automations"
      where "id" > ? and "trigger_type" = 'schedule' order by "id" limit ?`,
    [after, limit],
  );
  return rows.map((row) => ({
    id: row.id,
    account: { id: row.account_id },
    status: row.status,
    triggerType: 'schedule',
    trigger: row.trigger,
    action: row.action,
    updatedAt: new Date(row.updated_at),
  }));
}

/**
 * The account's state triggers, whatever their status, counted once its other counts of them
 * have committed: the transaction's lock on the account's state triggers, held to its commit,
 * orders racing creates and updates (so that none passes the cap they check).
 */
export async function lockedStateTriggerCount(em: EntityManager, accountId: string): Promise<number> {
  await em.execute(`select pg_advisory_xact_lock(hashtext('state-triggers:' || ?))`, [accountId]);
  const [row] = await em.execute<{ count: string }[]>(
    `select count(*) as "count" from "automations" where "account_id" = ? and "trigger_type" = 'state'`,
    [accountId],
  );
  return Number(row?.count ?? 0);
}

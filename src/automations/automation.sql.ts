import type { EntityManager } from '@mikro-orm/postgresql';
import { executeBound } from '../db/bound-statement.ts';
import { blockTriggerTypes } from './state-trigger-kinds.ts';
import type { AutomationStatus, FollowedTrigger, ScheduleTrigger, StateTrigger } from './automations.schemas.ts';

/** The hand-written statements of the `automations` table (the entity's own writes go through the ORM). */

/**
 * The account's number of automations as its transaction sees it (automation_counts, migration
 * 0025): after the transaction's own insert, whose increment holds the count's row lock to the
 * commit, an exact count that no other create of the account can pass meanwhile.
 */
export async function automationsOfAccount(em: EntityManager, accountId: string): Promise<number> {
  const { rows } = await executeBound<{ automations: number }>(em, automationsOfAccountSql, [accountId]);
  return rows[0]?.automations ?? 0;
}

export const automationsOfAccountSql = `select "automations" from "automation_counts" where "account_id" = ?`;

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

/** The first block an active blockchain or transaction trigger watches from; null when none does. */
export async function firstWatchedBlock(em: EntityManager): Promise<number | null> {
  const [armed] = await em.execute<{ first: number | null }[]>(
    `select min("watch_from_block") as "first" from "automations"
      where "status" = 'active' and "trigger_type" in ('blockchain', 'transaction')`,
  );
  return armed?.first ?? null;
}

/**
 * Whether any active automation watches blocks (`blockTriggerTypes`): the reconciler's pass asks
 * whether the follower must run, which the first entry of the partial index answers; counted,
 * PostgreSQL read every watcher's entry each pass (4,000 at 10k).
 */
export const watchingBlocksSql = `select exists(
    select 1 from "automations" where "status" = 'active' and "trigger_type" = any(?::text[])
  ) as "watching"`;

export async function watchingBlocks(em: EntityManager) {
  const { rows } = await executeBound<{ watching: boolean }>(em, watchingBlocksSql, [blockTriggerTypes]);
  return rows[0]?.watching === true;
}

/** Every active blockchain or transaction automation that watches from a block, as a plain row. */
export async function activeWatcherRows(em: EntityManager) {
  return em.execute<{ id: string; account_id: string; trigger: FollowedTrigger; watch_from_block: number | null }[]>(
    `select "id", "account_id", "trigger", "watch_from_block" from "automations"
      where "status" = 'active' and "trigger_type" in ('blockchain', 'transaction')
        and "watch_from_block" is not null`,
  );
}

/** The change counter of the watchers (migration 0024) as text; null without its row. */
export async function watcherChangesVersion(em: EntityManager): Promise<string | null> {
  const [row] = await em.execute<{ version: string }[]>(`select "version" from "watcher_changes" where "id" = 1`);
  return row?.version ?? null;
}

/** An active state trigger with its mark (null columns: none written yet). */
interface StateRow {
  id: string;
  account_id: string;
  trigger: StateTrigger;
  watch_from_block: number | null;
  condition_key: string | null;
  armed: boolean | null;
  last_value: string | null;
  evaluated_block: number | null;
  failing: boolean | null;
}

/** Every active state trigger, each with its mark, as plain rows. */
export async function activeStateRows(em: EntityManager): Promise<StateRow[]> {
  return em.execute<StateRow[]>(
    `select a."id", a."account_id", a."trigger", a."watch_from_block",
        m."condition_key", m."armed", m."last_value", m."evaluated_block", m."failing"
      from "automations" a left join "state_trigger_marks" m on m."automation_id" = a."id"
      where a."status" = 'active' and a."trigger_type" = 'state'`,
  );
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
    updated_at: Date | string;
  }>(
    em,
    `select "id", "account_id", "status", "trigger", "updated_at" from "automations"
      where "id" > ? and "trigger_type" = 'schedule' order by "id" limit ?`,
    [after, limit],
  );
  return rows.map((row) => ({
    id: row.id,
    account: { id: row.account_id },
    status: row.status,
    triggerType: 'schedule',
    trigger: row.trigger,
    updatedAt: new Date(row.updated_at),
  }));
}

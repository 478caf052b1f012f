import type { EntityManager } from '@mikro-orm/postgresql';
import { executeBound } from '../../db/bound-statement.ts';
import { jsonbParam } from '../../db/jsonb-param.ts';
import type { PriceTrigger } from '../model/trigger.schemas.ts';
import { runStatus } from '../../shared/outcomes.ts';

/** An active price automation of one source, with what its trigger decided last (null: nothing yet). */
export interface PriceRow {
  id: string;
  account_id: string;
  trigger: PriceTrigger;
  updated_at: Date;
  condition_key: string | null;
  armed: boolean | null;
  failures: number | null;
  failing_since: Date | null;
  checked_at: Date | null;
  poll_key: string | null;
}

/**
 * Every active price automation reading the source, with its trigger's state. Each state is looked
 * up by its automation: joined, the planner hashed every state of every source at each poll (3,000
 * rows read for a source of 300 at N = 10,000, issue 34). The `limit` (a key has one state) keeps
 * the lookup from being flattened back into that join.
 */
export const activePriceRowsSql = `select a."id", a."account_id", a."trigger", a."updated_at", s."condition_key",
    s."armed", s."failures", s."failing_since", s."checked_at", s."poll_key"
  from "automations" a left join lateral (
    select "condition_key", "armed", "failures", "failing_since", "checked_at", "poll_key"
      from "price_trigger_states" where "automation_id" = a."id" limit 1
  ) s on true
  where a."price_source" = ? and a."status" = 'active' and a."trigger_type" = 'price'`;

/** Every active price automation reading `source`, with its trigger's state. */
export async function activePriceRows(em: EntityManager, source: string): Promise<PriceRow[]> {
  const { rows } = await executeBound<PriceRow>(em, activePriceRowsSql, [source]);
  return rows.map((row) => ({
    ...row,
    updated_at: asDate(row.updated_at),
    failing_since: row.failing_since === null ? null : asDate(row.failing_since),
    checked_at: row.checked_at === null ? null : asDate(row.checked_at),
  }));
}

/** Bound statements answer a time as the driver's text: a Date, read from it. */
const asDate = (value: Date | string) => new Date(value);

/**
 * Of `ids`, the automations still active with a price trigger, each with when its row last
 * changed, locked against a change until the caller's transaction ends. Taken before any state
 * is written, in the order a PATCH takes its row, so that the two wait on each other, never deadlock.
 */
export async function lockPriceRows(em: EntityManager, ids: string[]): Promise<Map<string, Date>> {
  const { rows } = await executeBound<{ id: string; updated_at: Date }>(
    em,
    `select "id", "updated_at" from "automations"
      where "id" = any(?::text[]) and "status" = 'active' and "trigger_type" = 'price'
      order by "id" for key share`,
    [ids],
  );
  return new Map(rows.map((row) => [row.id, asDate(row.updated_at)]));
}

export interface PriceState {
  automationId: string;
  conditionKey: string;
  armed: boolean;
  failures: number;
  failingSince: Date | null;
  checkedAt: Date;
  pollKey: string;
}

/** Writes what each trigger decided, in the caller's transaction. */
export async function savePriceStates(em: EntityManager, states: PriceState[]) {
  if (states.length === 0) return;
  await executeBound(
    em,
    `insert into "price_trigger_states"
        ("automation_id", "condition_key", "armed", "failures", "failing_since", "checked_at", "poll_key")
      select * from unnest(?::text[], ?::text[], ?::boolean[], ?::int[], ?::timestamptz[], ?::timestamptz[], ?::text[])
      on conflict ("automation_id") do update set "condition_key" = excluded."condition_key",
        "armed" = excluded."armed", "failures" = excluded."failures", "failing_since" = excluded."failing_since",
        "checked_at" = excluded."checked_at", "poll_key" = excluded."poll_key"`,
    [
      states.map((state) => state.automationId),
      states.map((state) => state.conditionKey),
      states.map((state) => state.armed),
      states.map((state) => state.failures),
      states.map((state) => state.failingSince),
      states.map((state) => state.checkedAt),
      states.map((state) => state.pollKey),
    ],
  );
}

/** A trigger created, changed or activated starts afresh: armed, no failures, due at once. */
export async function forgetPriceState(em: EntityManager, automationId: string) {
  await executeBound(em, `delete from "price_trigger_states" where "automation_id" = ?`, [automationId]);
}

/**
 * The runs a poll already recorded and not ended, each with its automation's account (a repeated
 * poll starts them; one recorded ended, refused by the per-account cap, starts nothing).
 */
export async function runsOfPoll(em: EntityManager, pollKey: string, ids: string[]) {
  const { rows } = await executeBound<{ id: string; automation_id: string; account_id: string }>(
    em,
    `select "id", "automation_id", "account_id" from "automation_runs"
      where "fire_key" = ? and "automation_id" = any(?::text[]) and "status" = ?`,
    [pollKey, ids, runStatus.running],
  );
  return rows;
}

/** The sources active price automations read: one poller each. */
export async function activePriceSources(em: EntityManager): Promise<string[]> {
  const { rows } = await executeBound<{ price_source: string }>(
    em,
    `select distinct "price_source" from "automations"
      where "status" = 'active' and "trigger_type" = 'price' and "price_source" is not null`,
    [],
  );
  return rows.map((row) => row.price_source);
}

/**
 * Active price automations whose source is not named yet (written before sources were), a page
 * after `after`: found by the sources' partial index (its nulls), then put in order. Ordered by id
 * as one statement, PostgreSQL read every automation through the primary key at each reconciler
 * pass to find none (10,000 rows a pass at 10k). An inactive one is named once it is activated:
 * the poller reads active rows only.
 */
export const unnamedPriceRowsSql = `with "unnamed" as materialized (
    select "id", "account_id", "trigger" from "automations"
      where "status" = 'active' and "trigger_type" = 'price' and "price_source" is null
  )
  select * from "unnamed" where "id" > ? order by "id" limit ?`;

export async function unnamedPriceRows(em: EntityManager, after: string, limit: number) {
  const { rows } = await executeBound<{ id: string; account_id: string; trigger: PriceTrigger }>(
    em,
    unnamedPriceRowsSql,
    [after, limit],
  );
  return rows;
}

/** Names the source of an automation whose trigger is still the one it was named from. */
export async function nameSource(em: EntityManager, id: string, trigger: PriceTrigger, source: string) {
  await executeBound(
    em,
    `update "automations" set "price_source" = ?
      where "id" = ? and "price_source" is null and "trigger_type" = 'price' and "trigger" = ?::jsonb`,
    [source, id, jsonbParam(trigger)],
  );
}

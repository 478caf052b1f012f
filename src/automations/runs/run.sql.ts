import type { EntityManager } from '@mikro-orm/postgresql';
import { executeBound } from '../../db/bound-statement.ts';
import { jsonbParam } from '../../db/jsonb-param.ts';
import type { Execution } from '../../functions/execution.entity.ts';
import { executionColumns } from '../../functions/execution.sql.ts';
import type { Action } from '../model/action.schemas.ts';
import type { FirePayload, RunError } from '../model/run.entity.ts';
// The vocabulary's `runStatus` as `runStatusName`: this module's `runStatus` reads one run's.
import { runStatus as runStatusName, type RunStatus } from '../../shared/outcomes.ts';

/**
 * The statements of a run's life in the `automation_runs` table: recorded, begun, dispatched, its
 * execution linked, ended. Every write of a run's end answers the type of what fired it
 * (`trigger_type`) when it ended the run, nothing when the run had ended already, so that its
 * caller counts each end once. The table's other statements live beside the capability that runs
 * them, in `run-<capability>.sql.ts` modules (`grep automation_runs` lists them all).
 */

type Ended = { trigger_type: string } | undefined;

/** A new run, as `insertRun` records it. */
interface NewRun {
  id: string;
  automationId: string;
  accountId: string;
  fireKey: string;
  payload: FirePayload;
  retryOf: string | null;
}

/**
 * The function a run's action names, if it exists in the run's account (as beginRun's read finds
 * it): its workflow is started labelled with it, and needs no upsert of its own to say so.
 */
const actionFunctionOf = (run: string) => `(select f."id" from "automations" a
    join "functions" f on f."id" = a."action"->>'functionId' and f."account_id" = a."account_id"
    where a."id" = ${run}."automation_id" and a."action"->>'type' = 'function') as "function_id"`;

/**
 * A run records the network its automation follows (issue 45): where its chain steps go. Read from
 * the automation's row as the run is inserted, by its primary key, so that no writer of a run can
 * give it another; an automation gone meanwhile leaves it null, refused as the foreign key is.
 */
const networkOfAutomation = `(select a."network" from "automations" a where a."id" = ?)`;

const insertRunSql = `insert into "automation_runs"
  ("id", "automation_id", "account_id", "fire_key", "status", "trigger", "retry_of", "dispatched", "started_at",
   "network")
  values (?, ?, ?, ?, '${runStatusName.running}', ?, ?, false, now(), ${networkOfAutomation})
  on conflict ("automation_id", "fire_key") do nothing
  returning "id", ${actionFunctionOf('"automation_runs"')}`;

/**
 * A schedule's fire, recorded when its automation was active at the fire's time (active now, or
 * changed since: see `accountIfActiveAt`), in one statement with that read.
 */
const scheduledRunInsert = `insert into "automation_runs"
  ("id", "automation_id", "account_id", "fire_key", "status", "trigger", "retry_of", "dispatched", "started_at",
   "network")
  select ?, a."id", a."account_id", ?, '${runStatusName.running}', ?, null, false, now(), a."network"
  from "automations" a
  where a."id" = ? and (a."status" = 'active' or a."updated_at" > ?)
  on conflict ("automation_id", "fire_key") do nothing`;

const insertScheduledRunSql = `${scheduledRunInsert}
  returning "id", "account_id", ${actionFunctionOf('"automation_runs"')}`;

/** A schedule's fire to record: the run's id and fire key, what fired it, the time it was for. */
interface ScheduledRunRow {
  id: string;
  automationId: string;
  fireKey: string;
  payload: FirePayload;
  scheduledAt: Date;
}

const scheduledRunParams = (run: ScheduledRunRow) => [
  run.id,
  run.fireKey,
  jsonbParam(run.payload),
  run.automationId,
  run.scheduledAt,
];

/**
 * Records a schedule's fire as a run of its automation; undefined when it recorded nothing: the
 * automation was not active at `scheduledAt` (or is gone), or the fire was recorded before.
 */
export async function insertScheduledRun(
  em: EntityManager,
  run: ScheduledRunRow,
): Promise<(RecordedRun & { account_id: string }) | undefined> {
  const params = scheduledRunParams(run);
  const { rows } = await executeBound<RecordedRun & { account_id: string }>(em, insertScheduledRunSql, params);
  return rows[0];
}

/** A cause its automation cannot process: the run ends as it is recorded, its action never run. */
const insertFailedRunSql = `insert into "automation_runs"
  ("id", "automation_id", "account_id", "fire_key", "status", "trigger", "retry_of", "dispatched", "started_at",
   "error", "completed_at", "duration", "network")
  values (?, ?, ?, ?, '${runStatusName.failure}', ?, ?, false, now(), ?, now(), 0, ${networkOfAutomation})
  on conflict ("automation_id", "fire_key") do nothing
  returning "id", null as "function_id"`;

/** A run recorded: its id, and the function its action runs (null: none, or not a function action). */
interface RecordedRun {
  id: string;
  function_id: string | null;
}

/**
 * Records a run unless its cause fired before (then nothing: undefined); with `error`, ended as a
 * failure as it is recorded, its action never run.
 */
export async function insertRun(em: EntityManager, run: NewRun, error?: RunError): Promise<RecordedRun | undefined> {
  const params = [run.id, run.automationId, run.accountId, run.fireKey, jsonbParam(run.payload), run.retryOf];
  const { rows } = error
    ? await executeBound<RecordedRun>(em, insertFailedRunSql, [...params, jsonbParam(error), run.automationId])
    : await executeBound<RecordedRun>(em, insertRunSql, [...params, run.automationId]);
  return rows[0];
}

/** The run a cause fired first (a firing recorded again inserts nothing). */
export async function firstRun(em: EntityManager, automationId: string, fireKey: string): Promise<RecordedRun> {
  const [row] = await em.execute<RecordedRun[]>(
    `select "id", ${actionFunctionOf('"automation_runs"')} from "automation_runs" where "automation_id" = ? and "fire_key" = ?`,
    [automationId, fireKey],
  );
  return row!;
}

// A run holding a signed transaction is ended only from the chain's answer (endSent), never here.
const endRunSql = `update "automation_runs" set "status" = ?, "error" = ?, "completed_at" = now(),
  "duration" = (extract(epoch from now() - "started_at") * 1000)::int
where "id" = ? and "status" = '${runStatusName.running}' and "tx_raw" is null
returning "trigger"->>'type' as "trigger_type"`;

/** Ends a running run that holds no signed transaction. */
export async function endRunRow(
  em: EntityManager,
  runId: string,
  status: Exclude<RunStatus, typeof runStatusName.running>,
  error: RunError | null,
): Promise<Ended> {
  const [ended] = await em.execute<{ trigger_type: string }[]>(endRunSql, [status, jsonbParam(error), runId]);
  return ended;
}

const lastRunsSql = `select "a"."id", (select "r"."started_at" from "automation_runs" "r"
    where "r"."automation_id" = "a"."id" order by "r"."started_at" desc limit 1) as "last_run_at"
  from unnest(?::text[]) as "a"("id")`;

/**
 * When each automation's last run was recorded (one index probe each); null: none yet. A bound
 * statement answers a time as the driver's text, not a Date.
 */
export async function lastRunRows(em: EntityManager, automationIds: string[]) {
  return (await executeBound<{ id: string; last_run_at: string | null }>(em, lastRunsSql, [automationIds])).rows;
}

/** The run's status; undefined once it is gone. */
export async function runStatus(em: EntityManager, runId: string): Promise<RunStatus | undefined> {
  const [run] = await em.execute<{ status: RunStatus }[]>(`select "status" from "automation_runs" where "id" = ?`, [
    runId,
  ]);
  return run?.status;
}

/** The account's automation runs not yet ended. */
export async function countRunsInFlight(em: EntityManager, accountId: string): Promise<number> {
  const [row] = await em.execute<{ count: string }[]>(
    `select count(*) as "count" from "automation_runs" where "account_id" = ? and "status" = '${runStatusName.running}'`,
    [accountId],
  );
  return Number(row?.count ?? 0);
}

// The steps of a run's action (run-steps.ts).

/** A run as its action's first step reads it. */
export interface BeginRow {
  status: RunStatus;
  dispatched: boolean;
  execution_id: string | null;
  trigger: FirePayload;
  account_id: string;
  automation_id: string;
  action: Action;
  notify: boolean;
  /** The function a function action names, if it still exists in the run's account. */
  function_id: string | null;
  /** That function's current version. */
  function_version: number | null;
}

/** A run of `runs` (a table or a statement's rows), its automation's action, and the function that action names. */
const runToBeginFrom = (runs: string) => `select r."status", r."dispatched", r."execution_id", r."trigger",
  r."account_id", r."automation_id", a."action", a."notify" <> '[]'::jsonb as "notify", f."id" as "function_id",
  f."version" as "function_version"
from ${runs} r
join "automations" a on a."id" = r."automation_id"
left join "functions" f on a."action"->>'type' = 'function'
  and f."id" = a."action"->>'functionId' and f."account_id" = r."account_id"`;

/** The run, its automation's action, and the function that action names: one read. */
const readRunSql = `${runToBeginFrom('"automation_runs"')}
where r."id" = ?`;

export async function readRunToBegin(em: EntityManager, runId: string): Promise<BeginRow | undefined> {
  const [run] = await em.execute<BeginRow[]>(readRunSql, [runId]);
  return run;
}

/** A schedule's fire recorded, and read as `readRunSql` reads a run, in one statement. */
const recordAndReadSql = `with "fired" as (${scheduledRunInsert}
  returning "status", "dispatched", "execution_id", "trigger", "account_id", "automation_id"
)
${runToBeginFrom('"fired"')}`;

/**
 * Records a schedule's fire as `insertScheduledRun` does and answers the run as `readRunToBegin`
 * reads it; undefined when it recorded nothing (the fire recorded before, the automation not
 * active at its time): the statement's rows do not hold a row another statement wrote.
 */
export async function recordAndReadRun(em: EntityManager, run: ScheduledRunRow): Promise<BeginRow | undefined> {
  const { rows } = await executeBound<BeginRow>(em, recordAndReadSql, scheduledRunParams(run));
  return rows[0];
}

const markDispatchedSql = `update "automation_runs" set "dispatched" = true where "id" = ? and not "dispatched"`;

/** Marks the run's action as started. */
export async function markDispatched(em: EntityManager, runId: string) {
  await em.execute(markDispatchedSql, [runId]);
}

/**
 * The execution and the run's link to it, in one statement. The run's row is locked first: of two
 * attempts at once, the second finds the execution recorded and inserts nothing.
 */
const recordExecutionSql = (columns: { names: string; placeholders: string }) => `with "run" as (
  select "id" from "automation_runs" where "id" = ? and "status" = '${runStatusName.running}' and "execution_id" is null for update
), "recorded" as (
  insert into "executions" (${columns.names}) select ${columns.placeholders} from "run"
  returning "id"
)
update "automation_runs" set "dispatched" = true, "execution_id" = "recorded"."id"
from "recorded" where "automation_runs"."id" = ?
returning "automation_runs"."execution_id"`;

/**
 * Records `execution` (built by `newExecution`) and the running run's link to it, and marks the
 * run's action started; undefined when the run holds an execution already or has ended.
 */
export async function recordRunExecution(
  em: EntityManager,
  runId: string,
  execution: Execution,
): Promise<string | undefined> {
  const columns = executionColumns(em);
  const sql = recordExecutionSql(columns);
  const values = [runId, ...columns.values(execution), runId];
  const { rows } = await executeBound<{ execution_id: string }>(em, sql, values);
  return rows[0]?.execution_id;
}

/** Marks the run's action started whatever it holds, and says what it holds. */
const markAndReadSql = `update "automation_runs" set "dispatched" = true where "id" = ?
returning "status", "execution_id"`;

export async function markDispatchedAndRead(em: EntityManager, runId: string) {
  const [stored] = await em.execute<{ status: RunStatus; execution_id: string | null }[]>(markAndReadSql, [runId]);
  return stored;
}

/**
 * The run ends as its execution's outcome says, in one statement. A failed execution's error is
 * copied from its row (`copyError`): the outcome carries only the error's name, since its message
 * is the code's and stays out of Temporal's history.
 */
const finishSql = `update "automation_runs" as r set
  "status" = ?,
  "error" = coalesce((select e."error" from "executions" e where e."id" = r."execution_id" and ?), ?::jsonb),
  "completed_at" = now(),
  "duration" = (extract(epoch from now() - r."started_at") * 1000)::int
where r."id" = ? and r."status" = '${runStatusName.running}'
returning r."trigger"->>'type' as "trigger_type"`;

/** Ends a running function run: with its execution's error when `copyError`, else with `error`. */
export async function finishRunRow(
  em: EntityManager,
  runId: string,
  status: RunStatus,
  copyError: boolean,
  error: RunError | null,
): Promise<Ended> {
  const [ended] = await em.execute<{ trigger_type: string }[]>(finishSql, [
    status,
    copyError,
    jsonbParam(error),
    runId,
  ]);
  return ended;
}

import type { EntityManager } from '@mikro-orm/postgresql';
import type { PreparedCall } from '../../chain/contract-call.ts';
import type { ContractCall } from '../../chain/contract-calls.ts';
import { executeBound } from '../../db/bound-statement.ts';
import { jsonbParam } from '../../db/jsonb-param.ts';
import { storableText } from '../../db/storable.ts';
import type { Execution } from '../../functions/execution.entity.ts';
import { executionColumns } from '../../functions/execution.sql.ts';
import type { Action } from '../model/action.schemas.ts';
import type { Budget } from '../../chain/gas-budget.ts';
import type { FirePayload, RunError } from '../model/run.entity.ts';
// The vocabulary's `runStatus` as `runStatusName`: this module's `runStatus` reads one run's.
import { runStatus as runStatusName, type RunStatus } from '../../shared/outcomes.ts';
import { sweepPage } from '../../db/sweep-page.ts';

/**
 * The hand-written statements of the `automation_runs` table. Every write of a run's end answers
 * the type of what fired it (`trigger_type`) when it ended the run, nothing when the run had ended
 * already, so that its caller counts each end once.
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

const insertRunSql = `insert into "automation_runs"
  ("id", "automation_id", "account_id", "fire_key", "status", "trigger", "retry_of", "dispatched", "started_at")
  values (?, ?, ?, ?, '${runStatusName.running}', ?, ?, false, now())
  on conflict ("automation_id", "fire_key") do nothing
  returning "id", ${actionFunctionOf('"automation_runs"')}`;

/**
 * A schedule's fire, recorded when its automation was active at the fire's time (active now, or
 * changed since: see `accountIfActiveAt`), in one statement with that read.
 */
const insertScheduledRunSql = `insert into "automation_runs"
  ("id", "automation_id", "account_id", "fire_key", "status", "trigger", "retry_of", "dispatched", "started_at")
  select ?, a."id", a."account_id", ?, '${runStatusName.running}', ?, null, false, now() from "automations" a
  where a."id" = ? and (a."status" = 'active' or a."updated_at" > ?)
  on conflict ("automation_id", "fire_key") do nothing
  returning "id", "account_id", ${actionFunctionOf('"automation_runs"')}`;

/**
 * Records a schedule's fire as a run of its automation; undefined when it recorded nothing: the
 * automation was not active at `scheduledAt` (or is gone), or the fire was recorded before.
 */
export async function insertScheduledRun(
  em: EntityManager,
  run: { id: string; automationId: string; fireKey: string; payload: FirePayload; scheduledAt: Date },
): Promise<(RecordedRun & { account_id: string }) | undefined> {
  const params = [run.id, run.fireKey, jsonbParam(run.payload), run.automationId, run.scheduledAt];
  const { rows } = await executeBound<RecordedRun & { account_id: string }>(em, insertScheduledRunSql, params);
  return rows[0];
}

/** A cause its automation cannot process: the run ends as it is recorded, its action never run. */
const insertFailedRunSql = `insert into "automation_runs"
  ("id", "automation_id", "account_id", "fire_key", "status", "trigger", "retry_of", "dispatched", "started_at",
   "error", "completed_at", "duration")
  values (?, ?, ?, ?, '${runStatusName.failure}', ?, ?, false, now(), ?, now(), 0)
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
    ? await executeBound<RecordedRun>(em, insertFailedRunSql, [...params, jsonbParam(error)])
    : await executeBound<RecordedRun>(em, insertRunSql, params);
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

/** The run history in figures, as `runStats` reads it. */
interface RunStatsRow {
  successCount: number;
  failureCount: number;
  lastExecution: Date | null;
  lastStatus: typeof runStatusName.success | typeof runStatusName.failure | null;
}

/** Counted from the (automation_id, started_at) index alone, which holds each run's status. */
export const statsQuery = `select
    count(*) filter (where "status" = '${runStatusName.success}')::int as "successCount",
    count(*) filter (where "status" = '${runStatusName.failure}')::int as "failureCount",
    max("started_at") as "lastExecution",
    (select "status" from "automation_runs" where "automation_id" = ? and "status" <> '${runStatusName.running}'
      order by "started_at" desc limit 1) as "lastStatus"
  from "automation_runs" where "automation_id" = ?`;

export async function runStats(em: EntityManager, automationId: string): Promise<RunStatsRow | undefined> {
  const [row] = await em.execute<RunStatsRow[]>(statsQuery, [automationId, automationId]);
  return row;
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

/** The run, its automation's action, and the function that action names: one read. */
const readRunSql = `select r."status", r."dispatched", r."execution_id", r."trigger", r."account_id", r."automation_id",
  a."action", a."notify" <> '[]'::jsonb as "notify", f."id" as "function_id", f."version" as "function_version"
from "automation_runs" r
join "automations" a on a."id" = r."automation_id"
left join "functions" f on a."action"->>'type' = 'function'
  and f."id" = a."action"->>'functionId' and f."account_id" = r."account_id"
where r."id" = ?`;

export async function readRunToBegin(em: EntityManager, runId: string): Promise<BeginRow | undefined> {
  const [run] = await em.execute<BeginRow[]>(readRunSql, [runId]);
  return run;
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

// A contract run's writes, each conditional on what the row holds, so that an attempt of a step
// that is late (a retried activity whose first attempt still runs) can never undo what another
// stored: a run holds at most one transaction, and keeps it.

const storeCallsSql = `update "automation_runs" set "calls" = ?
where "id" = ? and "status" = '${runStatusName.running}' and "tx_raw" is null and "calls" is null`;

/**
 * Stores `calls` as what the run sends unless it holds calls already or has ended; answers what
 * the run holds after, null when it holds no calls.
 */
export async function storeCalls(
  em: EntityManager,
  runId: string,
  calls: ContractCall[],
): Promise<ContractCall[] | null> {
  await em.execute(storeCallsSql, [jsonbParam(calls), runId]);
  const [row] = await em.execute<{ calls: ContractCall[] | null }[]>(
    `select "calls" from "automation_runs" where "id" = ?`,
    [runId],
  );
  return row?.calls ?? null;
}

const storeTransactionSql = `update "automation_runs" set "tx_hash" = ?, "tx_raw" = ?, "valid_until_block" = ?
where "id" = ? and "status" = '${runStatusName.running}' and "tx_raw" is null`;

/** Stores `call` as the run's transaction unless the run holds one already or has ended. */
export async function storeTransaction(em: EntityManager, runId: string, call: PreparedCall) {
  await em.execute(storeTransactionSql, [call.hash, call.rawTransaction, call.validUntilBlock, runId]);
}

const endUnsentSql = (
  where: string,
) => `update "automation_runs" set "status" = '${runStatusName.failure}', "error" = ?, "vm_state" = ?, "gas_consumed" = ?,
  "completed_at" = now(), "duration" = (extract(epoch from now() - "started_at") * 1000)::int
where "id" = ? and "status" = '${runStatusName.running}' and ${where}
returning "trigger"->>'type' as "trigger_type"`;
const failUnsentSql = endUnsentSql(`"tx_raw" is null`);
const failUncalledSql = endUnsentSql(`"calls" is null`);

/** Fails a running run that holds no transaction, with the VM's state and GAS of a test that faulted. */
export async function failUnsentRow(
  em: EntityManager,
  runId: string,
  error: RunError,
  test: { vmState: 'FAULT'; gasConsumed: string } | null,
): Promise<Ended> {
  const params = [jsonbParam(error), test?.vmState ?? null, test?.gasConsumed ?? null, runId];
  const [ended] = await em.execute<{ trigger_type: string }[]>(failUnsentSql, params);
  return ended;
}

/** Fails a running run that holds no calls. */
export async function failUncalledRow(em: EntityManager, runId: string, error: RunError): Promise<Ended> {
  const [ended] = await em.execute<{ trigger_type: string }[]>(failUncalledSql, [jsonbParam(error), null, null, runId]);
  return ended;
}

/** What the run is now: its status, and whether it holds a transaction. */
export async function contractRunState(em: EntityManager, runId: string) {
  const [row] = await em.execute<{ status: RunStatus; sent: boolean }[]>(
    `select "status", "tx_raw" is not null as "sent" from "automation_runs" where "id" = ?`,
    [runId],
  );
  return row ?? null;
}

/** What the chain says of a transaction in a block, in GAS fractions but for the VM's state. */
export interface InBlock {
  vmState: 'HALT' | 'FAULT';
  gasConsumed: string;
  systemFee: string;
  networkFee: string;
}

const endSentSql = `update "automation_runs" set "status" = ?, "error" = ?, "vm_state" = ?, "gas_consumed" = ?,
  "system_fee" = ?, "network_fee" = ?, "relay_error" = null,
  "completed_at" = now(), "duration" = (extract(epoch from now() - "started_at") * 1000)::int
where "id" = ? and "status" = '${runStatusName.running}'
returning "trigger"->>'type' as "trigger_type"`;

/** Ends a running run whose transaction was sent, with what the chain says of it. */
export async function endSentRow(
  em: EntityManager,
  runId: string,
  status: Exclude<RunStatus, typeof runStatusName.running>,
  error: RunError | null,
  inBlock: InBlock | null,
): Promise<Ended> {
  const chain = [inBlock?.vmState, inBlock?.gasConsumed, inBlock?.systemFee, inBlock?.networkFee];
  const params = [status, jsonbParam(error), ...chain.map((value) => value ?? null), runId];
  const [ended] = await em.execute<{ trigger_type: string }[]>(endSentSql, params);
  return ended;
}

const noteRelayErrorSql = `update "automation_runs" set "relay_error" = ? where "id" = ? and "status" = '${runStatusName.running}'`;

/** Why the chain cannot be read while the run's transaction may still land; null once it answers again. */
export async function noteRelayError(em: EntityManager, runId: string, message: string | null) {
  await em.execute(noteRelayErrorSql, [message === null ? null : storableText(message).slice(0, 512), runId]);
}

const endSkippedSql = `update "automation_runs" set "status" = '${runStatusName.success}', "skipped" = ?,
  "completed_at" = now(), "duration" = (extract(epoch from now() - "started_at") * 1000)::int
where "id" = ? and "status" = '${runStatusName.running}' and "calls" is null and "tx_raw" is null
returning "trigger"->>'type' as "trigger_type"`;

/** Ends a running run that holds neither calls nor a transaction a success that sent nothing, with why. */
export async function endSkippedRow(em: EntityManager, runId: string, reason: string): Promise<Ended> {
  const [ended] = await em.execute<{ trigger_type: string }[]>(endSkippedSql, [storableText(reason), runId]);
  return ended;
}

/** A sending function's run as its deciding step reads it. */
export interface DecideRow {
  status: RunStatus;
  /** The run holds calls (decided by an earlier attempt) or a transaction: nothing is decided again. */
  decided: boolean;
  execution_id: string | null;
  trigger: FirePayload;
  action: Action;
}

const readToDecideSql = `select r."status", (r."calls" is not null or r."tx_raw" is not null) as "decided",
  r."execution_id", r."trigger", a."action"
from "automation_runs" r
join "automations" a on a."id" = r."automation_id"
where r."id" = ?`;

export async function readRunToDecide(em: EntityManager, runId: string): Promise<DecideRow | undefined> {
  const [run] = await em.execute<DecideRow[]>(readToDecideSql, [runId]);
  return run;
}

/**
 * Where the run stands among the failures in a row around it, as ended so far (each count up to
 * `count`), and the run whose end began that streak (`start` for the automation's first runs). Read
 * after the run's own end is stored: of runs ending together, the last to read sees all their ends.
 */
export const streakSql = `with "this" as materialized (
  select "automation_id", "completed_at", "id" from "automation_runs" where "id" = ?
), "began" as (
  (select r."completed_at", r."id" from "automation_runs" r
    where r."automation_id" = (select "automation_id" from "this")
      and r."status" <> '${runStatusName.running}' and r."status" <> '${runStatusName.failure}'
      and (r."completed_at", r."id") < ((select "completed_at" from "this"), (select "id" from "this"))
    order by r."completed_at" desc, r."id" desc limit 1)
  union all select '-infinity'::timestamptz, ''
  order by 1 desc, 2 desc limit 1
), "ended" as (
  (select r."completed_at", r."id" from "automation_runs" r
    where r."automation_id" = (select "automation_id" from "this")
      and r."status" <> '${runStatusName.running}' and r."status" <> '${runStatusName.failure}'
      and (r."completed_at", r."id") > ((select "completed_at" from "this"), (select "id" from "this"))
    order by r."completed_at", r."id" limit 1)
  union all select 'infinity'::timestamptz, ''
  order by 1, 2 limit 1
), "failures" as (
  select r."completed_at", r."id" from "automation_runs" r
  where r."automation_id" = (select "automation_id" from "this") and r."status" = '${runStatusName.failure}'
    and (r."completed_at", r."id") > ((select "completed_at" from "began"), (select "id" from "began"))
    and (r."completed_at", r."id") < ((select "completed_at" from "ended"), (select "id" from "ended"))
  order by r."completed_at", r."id" limit ?
)
select (select "id" from "began") as "began_after",
  (select count(*) from "failures"
    where ("completed_at", "id") < ((select "completed_at" from "this"), (select "id" from "this")))::int as "before",
  (select count(*) from "failures")::int as "length"`;

/** The streak's figures, each failure count up to `limit`. */
export async function failureStreakRow(em: EntityManager, runId: string, limit: number) {
  const [row] = await em.execute<{ began_after: string; before: number; length: number }[]>(streakSql, [runId, limit]);
  return row;
}

/** A run as a reservation of its GAS reads it, with the budgets of its automation and account. */
interface RunToReserve {
  automation_id: string;
  account_id: string;
  status: RunStatus;
  sent: boolean;
  automation_budget: Budget | null;
  account_budget: Budget | null;
}

/** The run, its row locked, with the budgets of its automation and account. */
const lockRunSql = `select r."automation_id", r."account_id", r."status", r."tx_raw" is not null as "sent",
  a."budget" as "automation_budget", acc."budget" as "account_budget"
from "automation_runs" r
join "automations" a on a."id" = r."automation_id"
join "accounts" acc on acc."id" = r."account_id"
where r."id" = ? for update of r`;

export async function lockRunToReserve(tx: EntityManager, runId: string): Promise<RunToReserve | undefined> {
  const [run] = await tx.execute<RunToReserve[]>(lockRunSql, [runId]);
  return run;
}

/** A running run as the recovery sweep pages through them. */
export interface RunningRunRow {
  id: string;
  cursor_at: string;
  account_id: string;
  automation_id: string;
  trigger_type: string;
  retry_of: string | null;
  execution_id: string | null;
  holds_transaction: boolean;
}

/** Running runs that started before the grace, in the order of their partial index. */
const runningPageSql = `select "id", "started_at"::text as "cursor_at", "account_id", "automation_id",
  "trigger"->>'type' as "trigger_type", "retry_of", "execution_id", "tx_raw" is not null as "holds_transaction"
from "automation_runs"
where "status" = '${runStatusName.running}' and "started_at" < now() - make_interval(secs => ?)
  and ("started_at", "id") > (cast(? as timestamptz), ?)
order by "started_at", "id" limit ?`;

/** Up to `limit` of them after the keyset (`at`, `id`). */
export const runningRunsPage = sweepPage<RunningRunRow>(runningPageSql);

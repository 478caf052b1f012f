import type { EntityManager } from '@mikro-orm/postgresql';
import type { SearchAttributePair } from '@temporalio/common';
import { executeBound } from '../db/bound-statement.ts';
import { jsonbParam } from '../db/jsonb-param.ts';
import type { ExecutionOutcome } from '../functions/execution-outcome.ts';
import { newExecution } from '../functions/execution-record.ts';
import { executionColumns } from '../functions/execution.sql.ts';
import { FunctionDef } from '../functions/function.entity.ts';
import { attributeKeys } from '../temporal/workflow-attributes.ts';
import type { Action, FunctionAction } from './automations.schemas.ts';
import type { FirePayload, RunError, RunStatus } from './run.entity.ts';
import { countRunEnd, endRunById } from './runs.ts';

/** A run deleted with its automation: nothing left to do or to record. */
export const gone = 'failure';

type Step =
  | { kind: 'ended'; status: RunStatus }
  | { kind: 'contract' }
  | { kind: 'webhook' }
  /**
   * `labels`: what the run's workflow adds to its own to name the function it runs; `sends`: its
   * result is a decision to read once it completed (decide-steps.ts).
   */
  | { kind: 'function'; executionId: string; labels: SearchAttributePair[]; sends: boolean };

/**
 * What a run's action workflow does next; every step below may be repeated safely. `notify`: the
 * automation has notification rules, so the run's end is looked at for what to tell.
 */
export type RunPlan = Step & { notify: boolean };

interface BeginRow {
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

const markDispatchedSql = `update "automation_runs" set "dispatched" = true where "id" = ? and not "dispatched"`;

/**
 * The execution and the run's link to it, in one statement. The run's row is locked first: of two
 * attempts at once, the second finds the execution recorded and inserts nothing.
 */
const recordExecutionSql = (columns: { names: string; placeholders: string }) => `with "run" as (
  select "id" from "automation_runs" where "id" = ? and "status" = 'running' and "execution_id" is null for update
), "recorded" as (
  insert into "executions" (${columns.names}) select ${columns.placeholders} from "run"
  returning "id"
)
update "automation_runs" set "dispatched" = true, "execution_id" = "recorded"."id"
from "recorded" where "automation_runs"."id" = ?
returning "automation_runs"."execution_id"`;

/**
 * Marks the run's action as started and, for a function action, records its execution (params:
 * the action's parameters plus what fired it under `trigger`) unless a first attempt did. Plain
 * statements: a read and a write in the common case, one round trip each.
 */
export async function beginRun(em: EntityManager, runId: string): Promise<RunPlan> {
  const [run] = await em.execute<BeginRow[]>(readRunSql, [runId]);
  if (!run) return { kind: 'ended', status: gone, notify: false };
  const step = await nextStep(em, runId, run);
  return { ...step, notify: run.notify };
}

async function nextStep(em: EntityManager, runId: string, run: BeginRow): Promise<Step> {
  const { action } = run;
  if (run.status === 'running' && action.type === 'function' && run.function_id && !run.execution_id) {
    return recordExecution(em, runId, run, action, run.function_id);
  }
  // The statement that records an execution marks the action started; every other step does here.
  if (!run.dispatched) await em.execute(markDispatchedSql, [runId]);
  if (run.status !== 'running') return { kind: 'ended', status: run.status };
  if (action.type !== 'function') return { kind: action.type };
  if (run.function_id && run.execution_id) return functionStep(run.execution_id, run.function_id, action);
  const message = `The function ${action.functionId} no longer exists.`;
  await endRunById(em, runId, 'failure', { name: 'FunctionNotFound', message });
  return { kind: 'ended', status: 'failure' };
}

const functionStep = (executionId: string, functionId: string, action: FunctionAction): Step => ({
  kind: 'function',
  executionId,
  labels: [{ key: attributeKeys.function, value: functionId }],
  sends: action.execute !== undefined,
});

/** Marks the run's action started whatever it holds, and says what it holds. */
const markAndReadSql = `update "automation_runs" set "dispatched" = true where "id" = ?
returning "status", "execution_id"`;

async function recordExecution(
  em: EntityManager,
  runId: string,
  run: BeginRow,
  action: FunctionAction,
  functionId: string,
): Promise<Step> {
  const params = { ...action.parameters, trigger: run.trigger };
  const fn = em.getReference(FunctionDef, functionId);
  const trigger = { type: 'automation' as const, automationId: run.automation_id };
  const version = action.functionVersion ?? run.function_version!;
  const execution = newExecution(em, fn, run.account_id, params, trigger, version);
  const columns = executionColumns(em);
  const sql = recordExecutionSql(columns);
  const recorded = (await executeBound<{ execution_id: string }>(em, sql, [runId, ...columns.values(execution), runId]))
    .rows[0];
  if (recorded) return functionStep(recorded.execution_id, functionId, action);
  // Another attempt recorded it first, or the run ended (or went) since it was read.
  const [stored] = await em.execute<{ status: RunStatus; execution_id: string | null }[]>(markAndReadSql, [runId]);
  if (stored?.execution_id) return functionStep(stored.execution_id, functionId, action);
  return { kind: 'ended', status: stored?.status ?? gone };
}

const lostExecution: RunError = { name: 'ExecutionLost', message: 'The execution was deleted with its function.' };

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
where r."id" = ? and r."status" = 'running'
returning r."trigger"->>'type' as "trigger_type"`;

/** The run ends as its execution did, as the execution's workflow returned it. */
export async function finishFunctionRun(
  em: EntityManager,
  runId: string,
  outcome: Pick<ExecutionOutcome, 'status' | 'errorName'>,
): Promise<RunStatus> {
  const status: RunStatus = outcome.status === 'completed' ? 'success' : 'failure';
  const copyError = outcome.status === 'failed';
  const otherwise = copyError ? { name: outcome.errorName ?? 'Error', message: 'failed' } : lostExecution;
  const error = outcome.status === 'completed' ? null : otherwise;
  const params = [status, copyError, jsonbParam(error), runId];
  const [ended] = await em.execute<{ trigger_type: string }[]>(finishSql, params);
  if (ended) {
    countRunEnd(ended.trigger_type, status);
    return status;
  }
  const [run] = await em.execute<{ status: RunStatus }[]>(`select "status" from "automation_runs" where "id" = ?`, [
    runId,
  ]);
  return run?.status ?? gone;
}

/**
 * The last word when an action could not run at all: the run ends as a failure, unless it holds a
 * signed transaction (it stays running, for the recovery sweep to relay). Answers how it stands.
 */
export async function failRun(em: EntityManager, runId: string, message: string): Promise<RunStatus> {
  if (await endRunById(em, runId, 'failure', { name: 'ActionError', message })) return 'failure';
  const [run] = await em.execute<{ status: RunStatus }[]>(`select "status" from "automation_runs" where "id" = ?`, [
    runId,
  ]);
  return run?.status ?? gone;
}

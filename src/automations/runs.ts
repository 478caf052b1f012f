import type { EntityManager } from '@mikro-orm/postgresql';
import type { SearchAttributePair } from '@temporalio/common';
import { executeBound } from '../db/bound-statement.ts';
import { jsonbParam } from '../db/jsonb-param.ts';
import { newId } from '../ids.ts';
import { labelAttributes } from '../temporal/workflow-attributes.ts';
import type { Automation } from './automation.entity.ts';
import { AutomationRun, type FirePayload, type RunError, type RunStatus } from './run.entity.ts';
import type { ListRuns } from './automations.schemas.ts';
import { automationRuns } from '../metrics/metrics.ts';
import { AppError } from '../errors.ts';
import { Notification } from './notifications/notification.entity.ts';

/** What a workflow needs to start a run's action, labelled for operators. */
export interface FiredRun {
  runId: string;
  labels: SearchAttributePair[];
}

export interface Firing {
  automation: Pick<Automation, 'id'> & { account: { id: string } };
  fireKey: string;
  payload: FirePayload;
  retryOf?: string | null;
  /** Set when its automation cannot process the cause: the run is recorded ended, failed with it. */
  error?: RunError;
}

const insertRun = `insert into "automation_runs"
  ("id", "automation_id", "account_id", "fire_key", "status", "trigger", "retry_of", "dispatched", "started_at")
  values (?, ?, ?, ?, 'running', ?, ?, false, now())
  on conflict ("automation_id", "fire_key") do nothing
  returning "id"`;

/** A cause its automation cannot process: the run ends as it is recorded, its action never run. */
const insertFailedRun = `insert into "automation_runs"
  ("id", "automation_id", "account_id", "fire_key", "status", "trigger", "retry_of", "dispatched", "started_at",
   "error", "completed_at", "duration")
  values (?, ?, ?, ?, 'failure', ?, ?, false, now(), ?, now(), 0)
  on conflict ("automation_id", "fire_key") do nothing
  returning "id"`;

/**
 * Records firings whose cause has not fired before; a cause that did (a retried activity, a block
 * read again after a crash) keeps its first run. Returns the run of every firing, new or not.
 */
export async function recordRuns(em: EntityManager, firings: Firing[]): Promise<FiredRun[]> {
  return (await recordRunsTold(em, firings)).map(({ run }) => run);
}

/**
 * `recordRuns`, telling which runs this call recorded: a replay starts the actions of those only,
 * as the others were started by whatever recorded them first (the follower, an earlier replay).
 */
export async function recordRunsTold(
  em: EntityManager,
  firings: Firing[],
): Promise<{ run: FiredRun; recorded: boolean }[]> {
  const runs: { run: FiredRun; recorded: boolean }[] = [];
  for (const firing of firings) {
    const { automation, fireKey, payload, error } = firing;
    const params = [newId('run'), automation.id, automation.account.id, fireKey, jsonbParam(payload)];
    const [inserted] = error
      ? (
          await executeBound<{ id: string }>(em, insertFailedRun, [
            ...params,
            firing.retryOf ?? null,
            jsonbParam(error),
          ])
        ).rows
      : (await executeBound<{ id: string }>(em, insertRun, [...params, firing.retryOf ?? null])).rows;
    // Counted as it is recorded: a transaction rolled back after this counts it again when repeated.
    if (inserted && error) countRunEnd(payload.type, 'failure');
    const runId = inserted?.id ?? (await firstRunId(em, automation.id, fireKey));
    const run = firedRun(runId, automation.account.id, automation.id, firing.retryOf ? 'retry' : payload.type);
    runs.push({ run, recorded: inserted !== undefined });
  }
  return runs;
}

/** The run a cause fired first (a firing recorded again inserts nothing). */
async function firstRunId(em: EntityManager, automationId: string, fireKey: string) {
  const [row] = await em.execute<{ id: string }[]>(
    `select "id" from "automation_runs" where "automation_id" = ? and "fire_key" = ?`,
    [automationId, fireKey],
  );
  return row!.id;
}

/**
 * A schedule's fire, recorded once per scheduled time; null once the automation is deleted, or
 * when it was no longer active at the fire's time: moved to `error` by a worker (its schedule
 * fires on until the reconciler pauses it), or made inactive while Temporal did not answer. A
 * fire scheduled before the row last changed is recorded (a pause stops only later fires).
 */
export async function recordScheduledRun(
  em: EntityManager,
  automationId: string,
  scheduledAt: string,
): Promise<FiredRun | null> {
  const [automation] = (
    await executeBound<{ account_id: string }>(
      em,
      `select "account_id" from "automations" where "id" = ? and ("status" = 'active' or "updated_at" > ?)`,
      [automationId, new Date(scheduledAt)],
    )
  ).rows;
  if (!automation) return null;
  const firing: Firing = {
    automation: { id: automationId, account: { id: automation.account_id } },
    fireKey: `schedule:${scheduledAt}`,
    payload: { type: 'schedule', scheduledAt },
  };
  const [run] = await recordRuns(em, [firing]);
  return run!;
}

const firedRun = (runId: string, accountId: string, automationId: string, trigger: string): FiredRun => ({
  runId,
  labels: labelAttributes({ accountId, automationId, trigger }),
});

/** Ends a run; a run that already ended keeps its outcome (activities may be retried). */
export function endRun(run: AutomationRun, status: Exclude<RunStatus, 'running'>, error: RunError | null = null) {
  if (run.status !== 'running') return;
  run.status = status;
  run.error = error;
  run.completedAt = new Date();
  run.duration = run.completedAt.getTime() - run.startedAt.getTime();
  countRunEnd((run.trigger as { type: string }).type, status);
}

// A run holding a signed transaction is ended only from the chain's answer (endSent), never here.
const endRunSql = `update "automation_runs" set "status" = ?, "error" = ?, "completed_at" = now(),
  "duration" = (extract(epoch from now() - "started_at") * 1000)::int
where "id" = ? and "status" = 'running' and "tx_raw" is null
returning "trigger"->>'type' as "trigger_type"`;

/**
 * `endRun` for a run not loaded, in one statement; false when it had already ended, or holds a
 * signed transaction (which may land yet).
 */
export async function endRunById(
  em: EntityManager,
  runId: string,
  status: Exclude<RunStatus, 'running'>,
  error: RunError | null = null,
): Promise<boolean> {
  const params = [status, jsonbParam(error), runId];
  const [ended] = await em.execute<{ trigger_type: string }[]>(endRunSql, params);
  if (ended) countRunEnd(ended.trigger_type, status);
  return ended !== undefined;
}

/** Counts a run that ended, by what fired it. */
export function countRunEnd(trigger: string, status: RunStatus) {
  automationRuns.inc({ trigger, status });
}

export async function listRuns(em: EntityManager, automationId: string, query: ListRuns) {
  return em.findAndCount(
    AutomationRun,
    { automation: automationId, ...(query.status ? { status: query.status } : {}) },
    { orderBy: { startedAt: 'desc', id: 'desc' }, limit: query.limit, offset: query.offset },
  );
}

export const runNotFound = () => new AppError('run_not_found', 'Run not found.');

/** One run of the automation, with its notifications in the order they were recorded. */
export async function getRun(em: EntityManager, automationId: string, runId: string) {
  const run = await em.findOne(AutomationRun, { id: runId, automation: automationId });
  if (!run) throw runNotFound();
  const notifications = await em.find(Notification, { runId }, { orderBy: { createdAt: 'asc', rule: 'asc' } });
  return { run, notifications };
}

const lastRunsSql = `select "a"."id", (select "r"."started_at" from "automation_runs" "r"
    where "r"."automation_id" = "a"."id" order by "r"."started_at" desc limit 1) as "last_run_at"
  from unnest(?::text[]) as "a"("id")`;

/** When each automation's last run was recorded (one index probe each); absent: none yet. */
export async function lastRunTimes(em: EntityManager, automationIds: string[]): Promise<Map<string, Date>> {
  if (automationIds.length === 0) return new Map();
  const { rows } = await executeBound<{ id: string; last_run_at: Date | null }>(em, lastRunsSql, [automationIds]);
  return new Map(rows.flatMap((row) => (row.last_run_at ? [[row.id, row.last_run_at] as const] : [])));
}

/**
 * runs/: a fire recorded as a run, once per cause (here), and the steps of the run's workflow
 * (run-steps.ts) over the run's statements (run.sql.ts); its statistics; a manual fire and a
 * retry (manual-runs.control.ts); whose turn an activity is (account-turns.ts).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { SearchAttributePair } from '@temporalio/common';
import { newId } from '../../ids.ts';
import { labelAttributes } from '../../shared/workflow-attributes.ts';
import type { Automation } from '../model/automation.entity.ts';
import { AutomationRun, type FirePayload, type NamedRunError } from '../model/run.entity.ts';
import { automationRuns } from '../../metrics/metrics.ts';
import { AppError } from '../../errors.ts';
import { Notification } from '../notifications/notification.entity.ts';
import { accountIfActiveAt } from '../model/automation.sql.ts';
import {
  endRunRow,
  firstRun,
  insertRun,
  insertScheduledRun,
  lastRunRows,
  recordAndReadRun,
  type BeginRow,
} from './run.sql.ts';
import { runStatus, type RunStatus } from '../../shared/outcomes.ts';

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
  error?: NamedRunError;
}

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
    const accountId = automation.account.id;
    const retryOf = firing.retryOf ?? null;
    const run = { id: newId('run'), automationId: automation.id, accountId, fireKey, payload, retryOf };
    const inserted = await insertRun(em, run, error);
    // Counted as it is recorded: a transaction rolled back after this counts it again when repeated.
    if (inserted && error) countRunEnd(payload.type, runStatus.failure);
    const recorded = inserted ?? (await firstRun(em, automation.id, fireKey));
    const trigger = retryOf ? 'retry' : payload.type;
    const fired = firedRun(recorded.id, accountId, automation.id, trigger, recorded.function_id ?? undefined);
    runs.push({ run: fired, recorded: inserted !== undefined });
  }
  return runs;
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
  const fireKey = `schedule:${scheduledAt}`;
  const payload: FirePayload = { type: 'schedule', scheduledAt };
  // Nearly every fire is recorded by one statement; one that recorded nothing (its automation not
  // active then, or a fire recorded before) is looked at as before.
  const fire = { id: newId('run'), automationId, fireKey, payload, scheduledAt: new Date(scheduledAt) };
  const inserted = await insertScheduledRun(em, fire);
  if (inserted)
    return firedRun(inserted.id, inserted.account_id, automationId, 'schedule', inserted.function_id ?? undefined);
  const accountId = await accountIfActiveAt(em, automationId, new Date(scheduledAt));
  if (accountId === undefined) return null;
  const firing: Firing = { automation: { id: automationId, account: { id: accountId } }, fireKey, payload };
  const [run] = await recordRuns(em, [firing]);
  return run!;
}

/** A schedule's fire, as the Schedule starts its run's workflow (workflows/scheduled-run.ts). */
export interface ScheduledFire {
  automationId: string;
  /** The time it was scheduled for (ISO 8601), whatever time it started. */
  scheduledAt: string;
}

/**
 * Records a schedule's fire as the run `runId`, the id of the workflow the Schedule started for it
 * (the automation's and the scheduled time's): once per scheduled time, as `recordScheduledRun`.
 * A step repeated, or another workflow started for the same time, finds the run recorded (its id
 * taken, or its fire key, then under another id: a fire of the code before, which started its own
 * run). Nothing is recorded for a fire whose automation was not active at its time, and none once
 * it is later than `lateAfterMs` (the schedule's catchup window): fires that waited that long
 * for a worker are dropped as the scheduler drops those it could not start within the window, so
 * that they do not pile up behind stopped workers (what the schedule's overlap policy SKIP did
 * when a fire was a workflow of its own). Answers whether the fire was too late to be recorded and,
 * when this call recorded it, the run as its first step reads it (`readRunToBegin`), read by the
 * same statement; a run recorded before is read by the caller.
 */
export async function recordScheduledFire(
  em: EntityManager,
  runId: string,
  fire: ScheduledFire & { lateAfterMs: number },
): Promise<{ late: boolean; run?: BeginRow }> {
  const scheduledAt = new Date(fire.scheduledAt);
  if (Date.now() - scheduledAt.getTime() > fire.lateAfterMs) return { late: true };
  const payload: FirePayload = { type: 'schedule', scheduledAt: fire.scheduledAt };
  const fireKey = `schedule:${fire.scheduledAt}`;
  const run = await recordAndReadRun(em, { id: runId, automationId: fire.automationId, fireKey, payload, scheduledAt });
  return { late: false, run };
}

/**
 * `functionId`: the function its action runs, when known as the run is recorded; the run's
 * workflow, started with it, does not add it itself (workflows/run-action.ts).
 */
export const firedRun = (
  runId: string,
  accountId: string,
  automationId: string,
  trigger: string,
  functionId?: string,
): FiredRun => ({
  runId,
  labels: labelAttributes({ accountId, automationId, trigger, functionId }),
});

/** Ends a run; a run that already ended keeps its outcome (activities may be retried). */
export function endRun(
  run: AutomationRun,
  status: Exclude<RunStatus, typeof runStatus.running>,
  error: NamedRunError | null = null,
) {
  if (run.status !== runStatus.running) return;
  run.status = status;
  run.error = error;
  run.completedAt = new Date();
  run.duration = run.completedAt.getTime() - run.startedAt.getTime();
  countRunEnd((run.trigger as { type: string }).type, status);
}

/**
 * `endRun` for a run not loaded, in one statement; false when it had already ended, or holds a
 * signed transaction (which may land yet).
 */
export async function endRunById(
  em: EntityManager,
  runId: string,
  status: Exclude<RunStatus, typeof runStatus.running>,
  error: NamedRunError | null = null,
): Promise<boolean> {
  const ended = await endRunRow(em, runId, status, error);
  if (ended) countRunEnd(ended.trigger_type, status);
  return ended !== undefined;
}

/** Counts a run that ended, by what fired it. */
export function countRunEnd(trigger: string, status: RunStatus) {
  automationRuns.inc({ trigger, status });
}

/** A page of the automation's runs, the latest first; with `status`, only those with it. */
export async function listRuns(
  em: EntityManager,
  automationId: string,
  query: { limit: number; offset: number; status?: RunStatus },
) {
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

/** When each automation's last run was recorded (one index probe each); absent: none yet. */
export async function lastRunTimes(em: EntityManager, automationIds: string[]): Promise<Map<string, Date>> {
  if (automationIds.length === 0) return new Map();
  const rows = await lastRunRows(em, automationIds);
  // Compared with Dates (schedule-stall.ts): the text compared as a Date made every schedule look
  // silent since its row last changed, and each pass created anew every schedule an hour old.
  return new Map(rows.flatMap((row) => (row.last_run_at ? [[row.id, new Date(row.last_run_at)] as const] : [])));
}

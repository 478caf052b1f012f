import type { EntityManager } from '@mikro-orm/postgresql';
import type { SearchAttributePair } from '@temporalio/common';
import type { RunAttempt } from '../../functions/execution-outcome.ts';
import { newExecution } from '../../functions/execution-record.ts';
import { FunctionDef } from '../../functions/function.entity.ts';
import { attributeKeys } from '../../shared/workflow-attributes.ts';
import type { FunctionAction } from '../model/action.schemas.ts';
import type { RunError } from '../model/run.entity.ts';
import { countRunEnd, endRunById, recordScheduledFire, type ScheduledFire } from './fires.ts';
import {
  finishRunRow,
  markDispatched,
  markDispatchedAndRead,
  readRunToBegin,
  recordRunExecution,
  runStatus,
  type BeginRow,
} from './run.sql.ts';
import {
  executionErrorName,
  executionStatus,
  runErrorName,
  runStatus as runStatusName,
  runStatusOf,
  type ExecutionOutcome,
  type RunStatus,
} from '../../shared/outcomes.ts';

type Step =
  | { kind: 'ended'; status: RunStatus }
  /** A schedule's fire that recorded no run (recordScheduledFire): nothing to do, nothing to tell. */
  | { kind: 'unrecorded'; late: boolean }
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

/**
 * What a run's first step did: its plan and, for a function action, the attempt at its code
 * (absent when that attempt could not be made: the workflow makes it, step by step) and the run's
 * status once its end is stored (absent while the attempt was deferred, or its result decides
 * calls, or storing the end failed: the workflow goes on).
 */
export type FirstStep = RunPlan & { attempt?: RunAttempt; status?: RunStatus };

/**
 * `beginRun`, then for a function action the attempt at its code (`run`) and the run's end: a
 * plain function run in one local activity, one marker and one activation instead of three. A
 * failure after the run began is no failure of this step: it answers what it did, and the
 * workflow makes the rest with each step's own retries and last word (runFunction's
 * failExecution), as a run whose first step was `beginRun` alone. Every part may be repeated.
 */
export async function beginAndRun(
  em: () => EntityManager,
  runId: string,
  run: (executionId: string) => Promise<RunAttempt>,
  warn: (step: string, error: unknown) => void,
  fire?: FireToRecord,
): Promise<FirstStep> {
  const plan = await beginRun(em(), runId, fire);
  if (plan.kind !== 'function') return plan;
  let attempt: RunAttempt;
  try {
    attempt = await run(plan.executionId);
  } catch (error) {
    warn('runExecution', error);
    return plan;
  }
  if (attempt.status === 'deferred' || (plan.sends && attempt.status === executionStatus.completed)) {
    return { ...plan, attempt };
  }
  try {
    return { ...plan, attempt, status: await finishFunctionRun(em(), runId, attempt) };
  } catch (error) {
    warn('finishFunctionRun', error);
    return { ...plan, attempt };
  }
}

/** A schedule's fire the run's first step records, and how late it may be (recordScheduledFire). */
export type FireToRecord = ScheduledFire & { lateAfterMs: number };

/**
 * Marks the run's action as started and, for a function action, records its execution (params:
 * the action's parameters plus what fired it under `trigger`) unless a first attempt did. Plain
 * statements: a read and a write in the common case, one round trip each. `fire`: a schedule's,
 * recorded first as the run `runId` by the statement that reads it (read again only when that
 * statement recorded nothing: a step repeated, or a fire not to record).
 */
export async function beginRun(em: EntityManager, runId: string, fire?: FireToRecord): Promise<RunPlan> {
  const recorded = fire && (await recordScheduledFire(em, runId, fire));
  const run = recorded?.run ?? (await readRunToBegin(em, runId));
  if (!run && recorded) return { kind: 'unrecorded', late: recorded.late, notify: false };
  // A run deleted with its automation answers a failure: nothing left to do or to record.
  if (!run) return { kind: 'ended', status: runStatusName.failure, notify: false };
  const step = await nextStep(em, runId, run);
  return { ...step, notify: run.notify };
}

async function nextStep(em: EntityManager, runId: string, run: BeginRow): Promise<Step> {
  const { action } = run;
  if (run.status === runStatusName.running && action.type === 'function' && run.function_id && !run.execution_id) {
    return recordExecution(em, runId, run, action, run.function_id);
  }
  // The statement that records an execution marks the action started; every other step does here.
  if (!run.dispatched) await markDispatched(em, runId);
  if (run.status !== runStatusName.running) return { kind: 'ended', status: run.status };
  if (action.type !== 'function') return { kind: action.type };
  if (run.function_id && run.execution_id) return functionStep(run.execution_id, run.function_id, action);
  const message = `The function ${action.functionId} no longer exists.`;
  await endRunById(em, runId, runStatusName.failure, { name: runErrorName.FunctionNotFound, message });
  return { kind: 'ended', status: runStatusName.failure };
}

const functionStep = (executionId: string, functionId: string, action: FunctionAction): Step => ({
  kind: 'function',
  executionId,
  labels: [{ key: attributeKeys.function, value: functionId }],
  sends: action.execute !== undefined,
});

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
  const recorded = await recordRunExecution(em, runId, execution);
  if (recorded) return functionStep(recorded, functionId, action);
  // Another attempt recorded it first, or the run ended (or went) since it was read.
  const stored = await markDispatchedAndRead(em, runId);
  if (stored?.execution_id) return functionStep(stored.execution_id, functionId, action);
  return { kind: 'ended', status: stored?.status ?? runStatusName.failure };
}

const lostExecution: RunError = {
  name: executionErrorName.ExecutionLostError,
  message: 'The execution was deleted with its function.',
};

/** The run ends as its execution did, as the execution's workflow returned it. */
export async function finishFunctionRun(
  em: EntityManager,
  runId: string,
  outcome: Pick<ExecutionOutcome, 'status' | 'errorName'>,
): Promise<RunStatus> {
  // A deleted execution is lost: the run fails (`lostExecution`).
  const status: RunStatus = outcome.status === 'deleted' ? runStatusName.failure : runStatusOf[outcome.status];
  const copyError = outcome.status === executionStatus.failed;
  const otherwise = copyError ? { name: outcome.errorName ?? 'Error', message: executionStatus.failed } : lostExecution;
  const error = outcome.status === executionStatus.completed ? null : otherwise;
  const ended = await finishRunRow(em, runId, status, copyError, error);
  if (ended) {
    countRunEnd(ended.trigger_type, status);
    return status;
  }
  return (await runStatus(em, runId)) ?? runStatusName.failure;
}

/**
 * The last word when an action could not run at all: the run ends as a failure, unless it holds a
 * signed transaction (it stays running, for the recovery sweep to relay). Answers how it stands.
 */
export async function failRun(em: EntityManager, runId: string, message: string): Promise<RunStatus> {
  if (await endRunById(em, runId, runStatusName.failure, { name: runErrorName.ActionError, message }))
    return runStatusName.failure;
  return (await runStatus(em, runId)) ?? runStatusName.failure;
}

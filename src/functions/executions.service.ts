import type { EntityManager } from '@mikro-orm/postgresql';
import type { WorkflowStarter } from '../temporal/workflow-starter.ts';
import { AppError } from '../errors.ts';
import type { MasterKeys } from '../crypto/envelope.ts';
import type { Resources } from '../resources.ts';
import { cancelWorkflow } from '../temporal/cancel-workflow.ts';
import { labelAttributes } from '../shared/workflow-attributes.ts';
import type { ExecuteFunctionWorkflow } from '../shared/workflow-signatures.ts';
import { outcomeOf } from './execution-outcome.ts';
import { Execution } from './execution.entity.ts';
import { newExecution, type ExecutionTrigger } from './execution-record.ts';
import { insertExecution } from './execution.sql.ts';
import type { ListExecutions } from './executions.schemas.ts';
import type { FunctionDef } from './function.entity.ts';
import type { LocalRuns, RunEnd } from './local-runs.ts';
import { openResult } from './result-seal.ts';
import { executionStatus, type ExecutionOutcome } from '../shared/outcomes.ts';
import { auditRecord } from '../audit/audit.ts';
import type { Actor } from '../audit/actor.ts';
import { valuesSummary } from '../audit/summary.ts';

const executionNotFound = () => new AppError('execution_not_found', 'Execution not found.');

export interface Invoker extends WorkflowStarter {
  /**
   * Set when a worker of this process shares the client's native connection: workflows are then
   * started eagerly (the server hands their first task straight back, and the code runs here), and
   * their ends are handed over through it.
   */
  localRuns: LocalRuns | undefined;
}

/**
 * What the functions area starts executions over: the process's resources and, in `neoflow api`,
 * the runs its own worker runs (src/app/main.ts makes them once and hands them to both).
 */
export type InvokerResources = Resources & Pick<Invoker, 'localRuns'>;

/** The Temporal client and the task queue workflows are started on. */
export const invokerOf = (resources: InvokerResources): Invoker => ({
  client: resources.temporal.client,
  taskQueue: resources.config.temporal.taskQueue,
  log: resources.log,
  localRuns: resources.localRuns,
});

/**
 * Records the execution as running and starts its workflow (id = execution id, input = that id),
 * then answers once the row is stored. Started eagerly, both go at once: the run's code waits for
 * the row in this process. Otherwise the row comes first, so a worker elsewhere finds it.
 */
export async function startExecution(...start: Parameters<typeof recordAndStart>) {
  const { execution, local, started } = recordAndStart(...start);
  try {
    await started;
    return execution;
  } finally {
    local?.forget();
  }
}

/** What a synchronous invoke answers: the run's end, or (no outcome) the row while it still runs. */
export type Invoked = RunEnd | { outcome: undefined; execution: Execution; result?: undefined };

/**
 * A synchronous invoke: records and starts the execution, then waits up to `waitMs` for its end.
 * Started eagerly, the run ends in this process and is handed over with its outcome and result: no
 * long poll of the history, no read of the row. Otherwise the workflow's outcome says the run
 * ended, and the row is read for what that outcome leaves out of the history (the end's details,
 * the result). Still running after the wait: the row as it is, for a 202. However the workflow
 * ended (even cancelled when its function was deleted), the row is the answer, never an error here.
 */
export async function invokeAndWait(
  em: EntityManager,
  invoker: Invoker,
  actor: Actor,
  masterKeys: MasterKeys,
  fn: FunctionDef,
  params: Record<string, unknown>,
  waitMs: number,
): Promise<Invoked> {
  const { execution, local, started } = recordAndStart(em, invoker, actor, fn, params, { type: 'api' });
  let timer: NodeJS.Timeout | undefined;
  try {
    const handle = await started;
    // Stored but not started: the reconciler starts it; the answer is the row (202).
    if (!handle) return { outcome: undefined, execution };
    const waited = new Promise<void>((resolveTimer) => (timer = setTimeout(resolveTimer, waitMs)));
    // Not started here, or deferred (its next attempt may run elsewhere): the workflow's outcome.
    const followed = () =>
      handle.result().then(
        (outcome) => readEnd(em, masterKeys, execution, outcome),
        () => readEnd(em, masterKeys, execution),
      );
    const here = local ? [local.ended, local.deferred.then(followed)] : [];
    const ended = await Promise.race([...here, ...(handle.eagerlyStarted ? [] : [followed()]), waited.then(nothing)]);
    return ended ?? (await readEnd(em, masterKeys, execution));
  } finally {
    local?.forget();
    clearTimeout(timer);
  }
}

/**
 * The row and the start of its workflow; `started` settles once both are done. Eagerly, they go at
 * once. A row that fails to store fails the request (after an eager start, the run finds no record
 * and ends as `deleted`, runExecution). A start that fails once the row is stored does not: the
 * execution exists and will run once, started by the reconciler (docs/deployment.md), so the
 * request answers it as accepted (202) and an Idempotency-Key stays bound to it; `started` then
 * holds no handle.
 */
function recordAndStart(
  em: EntityManager,
  invoker: Invoker,
  actor: Actor,
  fn: FunctionDef,
  params: Record<string, unknown>,
  trigger: ExecutionTrigger,
  functionVersion = fn.version,
) {
  const execution = newExecution(em, fn, fn.account.id, params, trigger, functionVersion);
  // One statement, outside the unit of work: no transaction around it, one round trip.
  const recorded = insertExecution(em, execution, startedEvent(actor, execution, trigger));
  if (!invoker.localRuns) {
    const started = recorded.then(() =>
      leftToReconciler(invoker, execution, startExecutionWorkflow(invoker, execution, fn)),
    );
    return { execution, local: undefined, started };
  }
  const local = invoker.localRuns.expect(execution, recorded);
  const starting = startExecutionWorkflow(invoker, execution, fn);
  const started = Promise.allSettled([recorded, starting]).then(async () => {
    await recorded;
    return leftToReconciler(invoker, execution, starting);
  });
  return { execution, local, started };
}

/** Who started an execution, and which: its params are never shown (they may carry anything). */
function startedEvent(actor: Actor, execution: Execution, trigger: ExecutionTrigger) {
  const retryOf = trigger.type === 'retry' ? trigger.retryOf : undefined;
  return auditRecord(actor, {
    action: retryOf === undefined ? 'function.invoke' : 'execution.retry',
    resource: { type: 'execution', id: execution.id },
    summary: valuesSummary({
      functionId: execution.function.id,
      version: execution.functionVersion,
      ...(retryOf !== undefined && { retryOf }),
    }),
  });
}

/** The started workflow's handle, or undefined when Temporal refused the start of a stored row. */
async function leftToReconciler<T>(invoker: Invoker, execution: Execution, starting: Promise<T>) {
  try {
    return await starting;
  } catch (error) {
    invoker.log.warn('execution stored, its start left to the reconciler', {
      executionId: execution.id,
      error: String(error),
    });
    return undefined;
  }
}

function startExecutionWorkflow(invoker: Invoker, execution: Execution, fn: FunctionDef) {
  return invoker.client.workflow.start<ExecuteFunctionWorkflow>('executeFunction', {
    workflowId: execution.id,
    taskQueue: invoker.taskQueue,
    args: [execution.id],
    typedSearchAttributes: labelAttributes({
      accountId: fn.account.id,
      functionId: fn.id,
      trigger: (execution.trigger as ExecutionTrigger).type,
    }),
    requestEagerStart: invoker.localRuns !== undefined,
  });
}

const nothing = () => undefined;

/**
 * A run that did not end in this process, as stored: the row holds what its workflow's outcome
 * keeps out of the history (the end's details, the result). Without an outcome (the wait ran out,
 * or the workflow was cancelled), the row says whether it ended.
 */
async function readEnd(
  em: EntityManager,
  masterKeys: MasterKeys,
  execution: Execution,
  outcome?: ExecutionOutcome,
): Promise<Invoked> {
  await em.refresh(execution);
  if (execution.status === executionStatus.running) return { outcome: undefined, execution };
  return { outcome: outcome ?? outcomeOf(execution), execution, result: await openResult(em, masterKeys, execution) };
}

/**
 * Cancels the workflows of the function's invoked and retried executions when it is deleted; those
 * an automation runs end with their runs (stopAutomationsOfFunction).
 */
export async function cancelRunning(em: EntityManager, invoker: Invoker, fn: FunctionDef) {
  const running = await em.find(Execution, { function: fn.id, status: executionStatus.running }, { fields: ['id'] });
  await Promise.all(running.map((execution) => cancelWorkflow(invoker.client, execution.id)));
}

export async function listExecutions(em: EntityManager, fn: FunctionDef, query: ListExecutions) {
  const startedAt = {
    ...(query.start_date ? { $gte: query.start_date } : {}),
    ...(query.end_date ? { $lte: query.end_date } : {}),
  };
  const where = {
    function: fn.id,
    ...(query.status ? { status: query.status } : {}),
    ...(query.start_date || query.end_date ? { startedAt } : {}),
  };
  return em.findAndCount(Execution, where, {
    orderBy: { startedAt: 'desc', id: 'desc' },
    limit: query.limit,
    offset: query.offset,
  });
}

export async function getExecution(em: EntityManager, fn: FunctionDef, executionId: string) {
  const execution = await em.findOne(Execution, { id: executionId, function: fn.id });
  if (!execution) throw executionNotFound();
  return execution;
}

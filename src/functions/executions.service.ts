import type { EntityManager } from '@mikro-orm/postgresql';
import type { Client } from '@temporalio/client';
import { AppError } from '../errors.ts';
import type { MasterKeys } from '../secrets/envelope.ts';
import type { Services } from '../services.ts';
import { cancelWorkflow } from '../temporal/cancel-workflow.ts';
import { labelAttributes } from '../temporal/workflow-attributes.ts';
import type { executeFunction } from '../../workflows/execute-function.ts';
import { Execution } from './execution.entity.ts';
import { newExecution, type ExecutionTrigger } from './execution-record.ts';
import type { ListExecutions } from './executions.schemas.ts';
import type { FunctionDef } from './function.entity.ts';
import { expectEnd, type EndedExecution } from './local-ends.ts';
import { openResult } from './result-seal.ts';

const executionNotFound = () => new AppError('execution_not_found', 'Execution not found.');

export interface Invoker {
  client: Client;
  taskQueue: string;
  /**
   * A worker of this process shares the client's native connection, so workflows are started
   * eagerly: the server hands their first task straight back, and the code runs here.
   */
  eager: boolean;
}

/** The Temporal client and the task queue workflows are started on. */
export const invokerOf = (services: Services): Invoker => ({
  client: services.temporal.client,
  taskQueue: services.config.temporal.taskQueue,
  eager: services.hostsWorker,
});

/**
 * Records the execution as running, then starts its workflow (id = execution id, input = that
 * id). The row comes first so that no started run is ever missing from the history; a row whose
 * start never happened (the process died in between) is started by the recovery sweep.
 */
export async function startExecution(
  em: EntityManager,
  invoker: Invoker,
  fn: FunctionDef,
  params: Record<string, unknown>,
  trigger: ExecutionTrigger,
) {
  const execution = newExecution(em, fn, params, trigger);
  await em.flush();
  await startExecutionWorkflow(invoker, execution, fn);
  return execution;
}

function startExecutionWorkflow(invoker: Invoker, execution: Execution, fn: FunctionDef) {
  return invoker.client.workflow.start<typeof executeFunction>('executeFunction', {
    workflowId: execution.id,
    taskQueue: invoker.taskQueue,
    args: [execution.id],
    typedSearchAttributes: executionLabels(execution, fn),
    requestEagerStart: invoker.eager,
  });
}

const executionLabels = (execution: Execution, fn: FunctionDef) =>
  labelAttributes({ accountId: fn.account.id, functionId: fn.id, trigger: (execution.trigger as ExecutionTrigger).type });

/**
 * A synchronous invoke: records and starts the execution, then waits up to `waitMs` for its end.
 * Started eagerly, the run ends in this process and is handed over with its result: no long poll
 * of the history, no read of the row. Otherwise the workflow's outcome says when to read the row.
 * Still running after the wait: the row as it is, for a 202. However the workflow ended (even
 * cancelled when its function was deleted), the row is the answer, never an error here.
 */
export async function invokeAndWait(
  em: EntityManager,
  invoker: Invoker,
  masterKeys: MasterKeys,
  fn: FunctionDef,
  params: Record<string, unknown>,
  waitMs: number,
): Promise<EndedExecution> {
  const execution = newExecution(em, fn, params, { type: 'api' });
  await em.flush();
  const local = expectEnd(execution.id);
  let timer: NodeJS.Timeout | undefined;
  try {
    const handle = await startExecutionWorkflow(invoker, execution, fn);
    const waited = new Promise<void>((resolveTimer) => (timer = setTimeout(resolveTimer, waitMs)));
    const remote = handle.eagerlyStarted ? new Promise<never>(() => {}) : handle.result().catch(() => undefined);
    const ended = await Promise.race([local.ended, remote.then(() => undefined), waited.then(() => undefined)]);
    return ended ?? (await readEnd(em, masterKeys, execution));
  } finally {
    local.stop();
    clearTimeout(timer);
  }
}

async function readEnd(em: EntityManager, masterKeys: MasterKeys, execution: Execution): Promise<EndedExecution> {
  await em.refresh(execution);
  return { execution, result: await openResult(em, masterKeys, execution) };
}

/**
 * Cancels the workflows of the function's invoked and retried executions when it is deleted; those
 * an automation runs end with their runs (stopAutomationsOfFunction).
 */
export async function cancelRunning(em: EntityManager, invoker: Invoker, fn: FunctionDef) {
  const running = await em.find(Execution, { function: fn.id, status: 'running' }, { fields: ['id'] });
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

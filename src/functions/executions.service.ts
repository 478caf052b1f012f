import type { EntityManager } from '@mikro-orm/postgresql';
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { AppError } from '../errors.ts';
import { newId } from '../ids.ts';
import type { Services } from '../services.ts';
import { labelAttributes } from '../temporal/workflow-attributes.ts';
import type { executeFunction } from '../../workflows/execute-function.ts';
import { Execution } from './execution.entity.ts';
import type { ListExecutions } from './executions.schemas.ts';
import type { FunctionDef } from './function.entity.ts';

const executionNotFound = () => new AppError('execution_not_found', 'Execution not found.');

export type Trigger =
  { type: 'api' } | { type: 'retry'; retryOf: string } | { type: 'automation'; automationId: string };

export interface Invoker {
  client: Client;
  taskQueue: string;
}

/** The Temporal client and the task queue workflows are started on. */
export const invokerOf = (services: Services): Invoker => ({
  client: services.temporal.client,
  taskQueue: services.config.temporal.taskQueue,
});

/** A new execution row, running from now; the caller flushes and starts its workflow. */
export function newExecution(em: EntityManager, fn: FunctionDef, params: Record<string, unknown>, trigger: Trigger) {
  return em.create(Execution, {
    id: newId('exec'),
    function: fn,
    account: fn.account,
    status: 'running',
    params,
    secretsRead: [],
    error: null,
    logs: [],
    trigger,
    startedAt: new Date(),
    completedAt: null,
    duration: null,
  });
}

/**
 * Records the execution as running, then starts its workflow (id = execution id, input = that
 * id). The row comes first so that no started run is ever missing from the history.
 */
export async function startExecution(
  em: EntityManager,
  invoker: Invoker,
  fn: FunctionDef,
  params: Record<string, unknown>,
  trigger: Trigger,
) {
  const execution = newExecution(em, fn, params, trigger);
  await em.flush();
  await invoker.client.workflow.start<typeof executeFunction>('executeFunction', {
    workflowId: execution.id,
    taskQueue: invoker.taskQueue,
    args: [execution.id],
    typedSearchAttributes: labelAttributes({ accountId: fn.account.id, functionId: fn.id, trigger: trigger.type }),
  });
  return execution;
}

/**
 * Waits for the run up to `waitMs`; then reloads the row, which the activity wrote. The row is
 * the answer, so how the workflow ended (even cancelled, after its function was deleted, and even
 * after this wait gave up) is only a signal and never an error here.
 */
export async function awaitExecution(em: EntityManager, invoker: Invoker, execution: Execution, waitMs: number) {
  const ended = invoker.client.workflow
    .getHandle(execution.id)
    .result()
    .then(
      () => undefined,
      () => undefined,
    );
  let timer: NodeJS.Timeout | undefined;
  const waited = new Promise<void>((resolveTimer) => (timer = setTimeout(resolveTimer, waitMs)));
  await Promise.race([ended, waited]);
  clearTimeout(timer);
  await em.refresh(execution);
  return execution;
}

/** Cancels the workflows of the function's running executions (when the function is deleted). */
export async function cancelRunning(em: EntityManager, invoker: Invoker, fn: FunctionDef) {
  const running = await em.find(Execution, { function: fn.id, status: 'running' }, { fields: ['id'] });
  await Promise.all(
    running.map((execution) =>
      invoker.client.workflow
        .getHandle(execution.id)
        .cancel()
        .catch((error: unknown) => {
          if (!(error instanceof WorkflowNotFoundError)) throw error;
        }),
    ),
  );
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

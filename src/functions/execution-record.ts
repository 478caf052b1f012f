import type { EntityManager } from '@mikro-orm/postgresql';
import { executeBound } from '../db/bound-statement.ts';
import { jsonbParam } from '../db/jsonb-param.ts';
import { newId } from '../ids.ts';
import { Execution } from './execution.entity.ts';
import type { FunctionDef } from './function.entity.ts';

/** What started an execution, as its record says. */
export type ExecutionTrigger =
  { type: 'api' } | { type: 'retry'; retryOf: string } | { type: 'automation'; automationId: string };

/**
 * The one place an execution row is built (invoke, retry, an automation's action): running from
 * now. `fn` is the loaded function where the run starts in this process (its code goes with the
 * row), or a reference (then `functionVersion` says which of its versions runs). Not yet persisted: the caller stores it (an invoke with one insert of its
 * own, an automation's action with `executionRow` in the statement that also records it on the
 * run), then starts its workflow.
 */
export function newExecution(
  em: EntityManager,
  fn: FunctionDef,
  accountId: string,
  params: Record<string, unknown>,
  trigger: ExecutionTrigger,
  functionVersion: number = fn.version,
) {
  return em.create(
    Execution,
    {
      id: newId('exec'),
      function: fn,
      account: accountId,
      status: 'running',
      params,
      secretsRead: [],
      httpRequests: [],
      error: null,
      logs: [],
      trigger,
      functionVersion,
      startedAt: new Date(),
      completedAt: null,
      duration: null,
    },
    { persist: false },
  );
}

const columns = [
  'id',
  'function_id',
  'account_id',
  'status',
  'params',
  'secrets_read',
  'error',
  'logs',
  'trigger',
  'function_version',
  'started_at',
  'completed_at',
  'duration',
];

/** An execution row's columns, and a placeholder for each, in the order `executionRow` gives them. */
export const executionColumns = {
  names: columns.map((column) => `"${column}"`).join(', '),
  placeholders: columns.map(() => '?').join(', '),
};

/** A row built by `newExecution`, as parameters of a statement of its own that inserts it. */
export function executionRow(execution: Execution): unknown[] {
  return [
    execution.id,
    execution.function.id,
    execution.account.id,
    execution.status,
    jsonbParam(execution.params),
    jsonbParam(execution.secretsRead),
    jsonbParam(execution.error),
    jsonbParam(execution.logs),
    jsonbParam(execution.trigger),
    execution.functionVersion,
    execution.startedAt,
    execution.completedAt,
    execution.duration,
  ];
}

const insertExecutionSql = `insert into "executions" (${executionColumns.names}) values (${executionColumns.placeholders})`;

/** Stores a row built by `newExecution` in one statement, its params (up to 1 MiB) bound, not escaped. */
export async function insertExecution(em: EntityManager, execution: Execution) {
  await executeBound(em, insertExecutionSql, executionRow(execution));
}

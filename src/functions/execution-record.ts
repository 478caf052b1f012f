import type { EntityManager } from '@mikro-orm/postgresql';
import { newId } from '../ids.ts';
import { Execution } from './execution.entity.ts';
import type { FunctionDef } from './function.entity.ts';

/** What started an execution, as its record says. */
export type ExecutionTrigger =
  { type: 'api' } | { type: 'retry'; retryOf: string } | { type: 'automation'; automationId: string };

/**
 * The one place an execution row is built (invoke, retry, an automation's action): running from
 * now. The caller flushes it, then starts the workflow that runs it.
 */
export function newExecution(
  em: EntityManager,
  fn: FunctionDef,
  params: Record<string, unknown>,
  trigger: ExecutionTrigger,
) {
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

import type { EntityManager } from '@mikro-orm/postgresql';
import { newId } from '../ids.ts';
import { Execution } from './execution.entity.ts';
import type { FunctionDef } from './function.entity.ts';

/** What started an execution, as its record says. */
export type ExecutionTrigger =
  { type: 'api' } | { type: 'retry'; retryOf: string } | { type: 'automation'; automationId: string };

/**
 * The one place an execution row is built (invoke, retry, an automation's action): running from
 * now. Not yet persisted: the caller stores it (an invoke with one insert of its own, an
 * automation's action in the flush that also records it on the run), then starts its workflow.
 */
export function newExecution(
  em: EntityManager,
  fn: FunctionDef,
  params: Record<string, unknown>,
  trigger: ExecutionTrigger,
) {
  return em.create(
    Execution,
    {
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
    },
    { persist: false },
  );
}

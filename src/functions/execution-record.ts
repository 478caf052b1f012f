import type { EntityManager } from '@mikro-orm/postgresql';
import { newId } from '../ids.ts';
import { Execution } from './execution.entity.ts';
import type { FunctionDef } from './function.entity.ts';
import { executionStatus } from '../shared/outcomes.ts';

/** What started an execution, as its record says. */
export type ExecutionTrigger =
  { type: 'api' } | { type: 'retry'; retryOf: string } | { type: 'automation'; automationId: string };

/**
 * The one place an execution row is built (invoke, retry, an automation's action): running from
 * now. `fn` is the loaded function where the run starts in this process (its code goes with the
 * row), or a reference (then `functionVersion` says which of its versions runs). Not yet persisted: the caller stores it (an invoke with one insert of its
 * own, an automation's action with `executionColumns` in the statement that also records it on the
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
      status: executionStatus.running,
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

import type { EntityManager } from '@mikro-orm/postgresql';
import type { SearchAttributePair } from '@temporalio/common';
import { Execution } from '../functions/execution.entity.ts';
import type { ExecutionTrigger } from '../functions/execution-record.ts';
import { labelAttributes } from '../temporal/workflow-attributes.ts';

/** An execution to start again: its workflow may never have started. */
export interface UnstartedExecution {
  executionId: string;
  labels: SearchAttributePair[];
}

/**
 * Executions invoked or retried through the API that are still running after `graceMs`: among them
 * any whose process died between writing the row and starting its workflow (the others are long
 * runs, whose workflow exists). An automation's execution is written by its run's workflow, so it
 * always has one.
 */
export async function unstartedExecutions(em: EntityManager, graceMs: number, limit: number) {
  const rows = await em.find(
    Execution,
    {
      status: 'running',
      startedAt: { $lt: new Date(Date.now() - graceMs) },
      trigger: { type: { $ne: 'automation' } },
    },
    { orderBy: { startedAt: 'asc' }, limit, fields: ['id', 'account', 'function', 'trigger'] },
  );
  return rows.map((execution): UnstartedExecution => ({
    executionId: execution.id,
    labels: labelAttributes({
      accountId: execution.account.id,
      functionId: execution.function.id,
      trigger: (execution.trigger as ExecutionTrigger).type,
    }),
  }));
}

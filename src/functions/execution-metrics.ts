import { errorNameLabel, executionDuration, executions, sandboxFailures } from '../metrics/metrics.ts';
import type { Execution } from './execution.entity.ts';
import type { ExecutionTrigger } from './execution-record.ts';

/** Counts an execution once its end is stored, in the process that ran it. */
export function countEnded(execution: Execution) {
  const status = execution.status;
  executions.inc({ status, trigger: (execution.trigger as ExecutionTrigger).type });
  executionDuration.observe({ status }, (execution.duration ?? 0) / 1000);
  if (status === 'failed') sandboxFailures.inc({ name: errorNameLabel(execution.error?.name ?? 'Error') });
}

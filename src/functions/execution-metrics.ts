import { errorNameLabel, executionDuration, executions, sandboxFailures } from '../metrics/metrics.ts';
import type { ExecutionTrigger } from './execution-record.ts';
import { executionStatus, type ExecutionOutcome } from '../shared/outcomes.ts';

/** Counts an execution's outcome once its end is stored, in the process that ran it. */
export function countEnded(outcome: ExecutionOutcome, trigger: ExecutionTrigger) {
  const { status } = outcome;
  executions.inc({ status, trigger: trigger.type });
  executionDuration.observe({ status }, (outcome.durationMs ?? 0) / 1000);
  if (status === executionStatus.failed) sandboxFailures.inc({ name: errorNameLabel(outcome.errorName ?? 'Error') });
}

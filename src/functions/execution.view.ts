import type { Execution } from './execution.entity.ts';

/** What invoke answers: the handle, plus the end of the run once it ended. */
export function executionHandle(execution: Execution) {
  return {
    id: execution.id,
    status: execution.status,
    startedAt: execution.startedAt.toISOString(),
    ...(execution.completedAt ? { completedAt: execution.completedAt.toISOString() } : {}),
    ...(execution.duration === null || execution.duration === undefined ? {} : { duration: execution.duration }),
  };
}

export function executionListItem(execution: Execution) {
  return {
    ...executionHandle(execution),
    params: execution.params,
    hasResult: execution.status === 'completed',
    hasError: execution.error !== null && execution.error !== undefined,
  };
}

export function executionDetails(execution: Execution, result: unknown) {
  return {
    ...executionHandle(execution),
    functionId: execution.function.id,
    params: execution.params,
    ...(execution.status === 'completed' ? { result } : {}),
    ...(execution.error ? { error: execution.error } : {}),
    logs: execution.logs,
    secretsRead: execution.secretsRead.map((read) => read.name),
    trigger: execution.trigger,
  };
}

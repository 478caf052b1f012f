import type { Automation } from './automation.entity.ts';
import type { AutomationRun, FirePayload } from './run.entity.ts';
import type { ExecutionStats } from './stats.ts';

/** An automation as the API shows it; `details` says why the service set `error`. */
export function automationView(automation: Automation, stats?: ExecutionStats) {
  return {
    id: automation.id,
    name: automation.name,
    status: automation.status,
    trigger: automation.trigger,
    action: automation.action,
    ...(automation.errorDetails ? { details: automation.errorDetails } : {}),
    ...(stats ? { executionStats: stats } : {}),
    createdAt: automation.createdAt.toISOString(),
    updatedAt: automation.updatedAt.toISOString(),
  };
}

/** A run in the history: what fired it (without a notification's full state) and what it did. */
export function runView(run: AutomationRun) {
  return {
    id: run.id,
    status: run.status,
    startedAt: run.startedAt.toISOString(),
    completedAt: run.completedAt?.toISOString() ?? null,
    duration: run.duration,
    trigger: summary(run.trigger),
    ...(run.retryOf ? { retryOf: run.retryOf } : {}),
    ...(run.executionId ? { executionId: run.executionId } : {}),
    // A contract action's outcome; a fault in its test invocation has no transaction.
    ...(run.vmState || run.txHash ? { txHash: run.txHash, vmState: run.vmState, gasConsumed: run.gasConsumed } : {}),
    error: run.error,
  };
}

function summary(payload: FirePayload) {
  if (payload.type !== 'blockchain') return payload;
  const { scriptHash, eventName, txHash, blockHash, blockIndex, notificationIndex } = payload;
  return { type: payload.type, scriptHash, eventName, txHash, blockHash, blockIndex, notificationIndex };
}

import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError } from '../../errors.ts';
import { newId } from '../../ids.ts';
import type { RunActionWorkflow } from '../../shared/workflow-signatures.ts';
import type { Automation } from '../model/automation.entity.ts';
import { AutomationRun, type FirePayload } from '../model/run.entity.ts';
import { recordRuns, runNotFound, type FiredRun } from './fires.ts';
import { assertTransactionSettled } from './transaction-settled.ts';
import type { NeoRpc } from '../../chain/rpc.ts';
import type { WorkflowStarter } from '../../temporal/workflow-starter.ts';
import { runsTaskQueue } from '../../temporal/task-queues.ts';
import { runStatus } from '../../shared/outcomes.ts';
import { audit } from '../../audit/audit.ts';
import type { Actor } from '../../audit/actor.ts';
import { valuesSummary } from '../../audit/summary.ts';

/**
 * What a manual run is started with: the process's Temporal, and the networks' nodes to tell
 * whether a retried run's transaction settled (on the run's network).
 */
type RunStarter = WorkflowStarter & { chain(network: string): NeoRpc };

/** An operator's fire: a run of its own, started now, even while the automation is inactive. */
export async function fireManually(em: EntityManager, control: RunStarter, actor: Actor, automation: Automation) {
  return startRun(em, control, actor, automation, { type: 'manual' }, null);
}

/**
 * Runs a failed run's action again with the same trigger payload, as a new run; not while the
 * failed run's transaction may still be in a block (assertTransactionSettled).
 */
export async function retryRun(
  em: EntityManager,
  control: RunStarter,
  actor: Actor,
  automation: Automation,
  runId: string,
) {
  const previous = await em.findOne(AutomationRun, { id: runId, automation: automation.id });
  if (!previous) throw runNotFound();
  if (previous.status !== runStatus.failure) {
    throw new AppError('conflict', `Only a failed run can be retried; this one is ${previous.status}.`);
  }
  if (previous.txHash) await assertTransactionSettled(control.chain(previous.network), previous);
  return startRun(em, control, actor, automation, previous.trigger, previous.id);
}

async function startRun(
  em: EntityManager,
  control: RunStarter,
  actor: Actor,
  automation: Automation,
  payload: FirePayload,
  retryOf: string | null,
) {
  const fireKey = `${retryOf ? 'retry' : 'manual'}:${newId('run')}`;
  const [fired] = await em.transactional(async (tx) => {
    const runs = await recordRuns(tx, [{ automation, fireKey, payload, retryOf }]);
    audit(tx, actor, {
      action: retryOf ? 'run.retry' : 'automation.fire',
      resource: { type: 'run', id: runs[0]!.runId },
      summary: valuesSummary({ automationId: automation.id, ...(retryOf && { retryOf }) }),
    });
    return runs;
  });
  // Recorded, the run exists and runs once: a start Temporal refuses is left to the reconciler,
  // and the request still answers it (202), its Idempotency-Key bound to it.
  await startActionWorkflow(control, fired!).catch((error: unknown) => {
    control.log.warn('run stored, its start left to the reconciler', { runId: fired!.runId, error: String(error) });
  });
  const run = await em.findOneOrFail(AutomationRun, { id: fired!.runId });
  // The answer is the run as it was accepted: a quick action may have ended before this read (its
  // end is what GET shows), and the contract answers a fire with the run `running`.
  return { id: run.id, status: runStatus.running, startedAt: run.startedAt.toISOString() };
}

/** On the runs' task queue, as every run started through the client (start-runs.ts): worker processes run it. */
async function startActionWorkflow(control: RunStarter, run: FiredRun) {
  await control.client.workflow.start<RunActionWorkflow>('runAction', {
    workflowId: run.runId,
    taskQueue: runsTaskQueue(control.taskQueue),
    args: [run.runId],
    typedSearchAttributes: run.labels,
  });
}

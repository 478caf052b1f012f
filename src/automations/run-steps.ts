import type { EntityManager } from '@mikro-orm/postgresql';
import type { SearchAttributePair } from '@temporalio/common';
import { Execution } from '../functions/execution.entity.ts';
import { newExecution } from '../functions/execution-record.ts';
import { FunctionDef } from '../functions/function.entity.ts';
import { attributeKeys } from '../temporal/workflow-attributes.ts';
import type { FunctionAction } from './automations.schemas.ts';
import { AutomationRun, type RunStatus } from './run.entity.ts';
import { endRun } from './runs.ts';

/** A run deleted with its automation: nothing left to do or to record. */
export const gone = 'failure';

type Step =
  | { kind: 'ended'; status: RunStatus }
  | { kind: 'contract' }
  | { kind: 'webhook' }
  /** `labels`: what the run's workflow adds to its own to name the function it runs. */
  | { kind: 'function'; executionId: string; labels: SearchAttributePair[] };

/**
 * What a run's action workflow does next; every step below may be repeated safely. `notify`: the
 * automation has notification rules, so the run's end is looked at for what to tell.
 */
export type RunPlan = Step & { notify: boolean };

/**
 * Marks the run's action as started and, for a function action, records its execution (params:
 * the action's parameters plus what fired it under `trigger`) unless a first attempt did.
 */
export async function beginRun(em: EntityManager, runId: string): Promise<RunPlan> {
  const run = await em.findOne(AutomationRun, { id: runId }, { populate: ['automation'] });
  if (!run) return { kind: 'ended', status: gone, notify: false };
  run.dispatched = true;
  const action = run.automation.action;
  const step: Step =
    run.status !== 'running'
      ? { kind: 'ended', status: run.status }
      : action.type === 'function'
        ? await functionStep(em, run, action)
        : { kind: action.type };
  await em.flush();
  return { ...step, notify: run.automation.notify.length > 0 };
}

async function functionStep(em: EntityManager, run: AutomationRun, action: FunctionAction): Promise<Step> {
  const fn = await em.findOne(FunctionDef, { id: action.functionId, account: run.accountId });
  if (!fn) {
    endRun(run, 'failure', {
      name: 'FunctionNotFound',
      message: `The function ${action.functionId} no longer exists.`,
    });
    return { kind: 'ended', status: 'failure' };
  }
  if (!run.executionId) {
    const params = { ...action.parameters, trigger: run.trigger };
    const execution = newExecution(em, fn, params, { type: 'automation', automationId: run.automation.id });
    em.persist(execution);
    run.executionId = execution.id;
  }
  return { kind: 'function', executionId: run.executionId, labels: [{ key: attributeKeys.function, value: fn.id }] };
}

/** The run ends as its execution did. */
export async function finishFunctionRun(em: EntityManager, runId: string): Promise<RunStatus> {
  const run = await em.findOne(AutomationRun, { id: runId });
  if (!run) return gone;
  const execution = run.executionId ? await em.findOne(Execution, { id: run.executionId }) : null;
  if (!execution)
    endRun(run, 'failure', { name: 'ExecutionLost', message: 'The execution was deleted with its function.' });
  else if (execution.status === 'completed') endRun(run, 'success');
  else if (execution.status === 'failed')
    endRun(run, 'failure', execution.error ?? { name: 'Error', message: 'failed' });
  await em.flush();
  return run.status;
}

/** The last word when an action could not run at all: the run ends as a failure. */
export async function failRun(em: EntityManager, runId: string, message: string) {
  const run = await em.findOne(AutomationRun, { id: runId });
  if (!run) return;
  endRun(run, 'failure', { name: 'ActionError', message });
  await em.flush();
}

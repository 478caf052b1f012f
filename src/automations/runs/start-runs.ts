import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import type { WorkflowIdReusePolicy } from '@temporalio/common';
import { attributeKeys } from '../../shared/workflow-attributes.ts';
import type { RunActionWorkflow } from '../../shared/workflow-signatures.ts';
import { runsTaskQueue } from '../../temporal/task-queues.ts';
import type { FiredRun } from './fires.ts';

/** Starts at once at most: a batch asks Temporal a few at a time, never a hundred calls together. */
const startsAtOnce = 8;

interface RunStart {
  client: Client;
  /** The deployment's task queue: the runs' workflows go on its runs queue (src/temporal/task-queues.ts). */
  taskQueue: string;
  /**
   * `REJECT_DUPLICATE` for runs just recorded: a workflow under the run's id, open or closed, is its
   * start. The sweep passes `ALLOW_DUPLICATE`: it starts again a run whose workflow closed while its
   * row still runs (workflows/start-action.ts).
   */
  reuse: WorkflowIdReusePolicy;
}

/**
 * Starts each run's action through the client, on the runs' task queue that worker processes alone
 * poll, under the run id as its workflow id: no parent holds it as a child, so no number of runs
 * in flight reaches Temporal's limit of pending children on the follower, a price poller or the
 * reconciler (docs/deployment.md). A start repeated (an
 * activity retried) is the same start: the id is taken. Every run is tried, `beat` called after
 * each; if any failed, the first failure is thrown once all were tried.
 */
export async function startRuns(target: RunStart, runs: FiredRun[], beat: () => void = () => {}): Promise<void> {
  let next = 0;
  const failures: unknown[] = [];
  const worker = async () => {
    for (let index = next++; index < runs.length; index = next++) {
      try {
        await startRun(target, runs[index]!);
      } catch (error) {
        failures.push(error);
      }
      beat();
    }
  };
  await Promise.all(Array.from({ length: Math.min(startsAtOnce, runs.length) }, worker));
  if (failures.length > 0) throw failures[0];
}

async function startRun(target: RunStart, run: FiredRun): Promise<void> {
  try {
    await target.client.workflow.start<RunActionWorkflow>('runAction', {
      workflowId: run.runId,
      taskQueue: runsTaskQueue(target.taskQueue),
      args: [run.runId],
      typedSearchAttributes: run.labels,
      workflowIdReusePolicy: target.reuse,
    });
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
  }
}

const accountOf = (run: FiredRun) =>
  String(run.labels.find(({ key }) => key.name === attributeKeys.account.name)?.value ?? '');

/**
 * `runs` in the order a shared loop starts them: one run of each account in turn, so that one
 * account's burst (at most NEOFLOW_ACCOUNT_RUNS_PER_READ of a read) is started beside the others',
 * not before them. Each account's runs keep their order.
 */
export function inAccountTurns(runs: FiredRun[]): FiredRun[] {
  const queues = [...Map.groupBy(runs, accountOf).values()];
  const ordered: FiredRun[] = [];
  for (let turn = 0; ordered.length < runs.length; turn++) {
    for (const queue of queues) if (turn < queue.length) ordered.push(queue[turn]!);
  }
  return ordered;
}

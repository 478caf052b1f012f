import { continueAsNew, patched, proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import type { FiredRun } from '../activities/automations.ts';
import { RunStarter } from './start-runs.ts';
import type { BlockFollowerWorkflow } from '../src/shared/workflow-signatures.ts';

/**
 * Reading blocks never gives up: a block that fails to fetch is read again, never skipped.
 * Heartbeats notice a lost worker within seconds.
 */
const { followBlocks } = proxyActivities<Activities>({
  startToCloseTimeout: '2 minutes',
  heartbeatTimeout: '10 seconds',
  retry: { initialInterval: '500 milliseconds', maximumInterval: '10 seconds', backoffCoefficient: 2 },
});

const roundsPerRun = 1000;

/**
 * Names the change that made each round start the runs of the round before, instead of start
 * activities of their own (RunStarter): histories recorded before it replay as they ran.
 */
const startedByNextRound = 'follower-rounds-start-runs';

/**
 * Follows one Neo network's blocks (workflow id `blocks_<magic>_<task queue>`): each round reads the new
 * blocks once, records the runs of every matching automation with the cursor, and starts the
 * actions of the runs the round before recorded. The cursor lives in PostgreSQL, committed with
 * the runs. It runs on a task queue of its own (src/temporal/task-queues.ts); its actions run on
 * the runs queue of `actionQueue`, the deployment's.
 *
 * One activity per round, and nothing else: the follower is woken once a round (once a block at the
 * head), whatever runs it starts. Its runs are no children of it, and no start activities either:
 * a child's start and end, or a start activity's end, would each wake it (3.6 tasks a block with
 * children), and Temporal refuses a parent's children past `limit.numPendingChildExecutions.error`.
 * Exactly once: the runs a round returns are in history until the next round has started them, and
 * that round, retried, starts them again under the same ids (a workflow id taken is the same start);
 * the last round's runs go to the next run of the follower through continue-as-new. A round whose
 * worker dies after recording its block, before it returns, leaves those runs to the reconciler,
 * which starts every run recorded and not started (workflows/recovery-sweep.ts).
 */
export const blockFollower: BlockFollowerWorkflow = async (network, actionQueue, carried = []) => {
  if (!patched(startedByNextRound)) return followWithStarter(network, actionQueue);
  let toStart: FiredRun[] = carried;
  for (let round = 0; round < roundsPerRun; round++) {
    toStart = await followBlocks(network, toStart, actionQueue);
    if (workflowInfo().continueAsNewSuggested) break;
  }
  await continueAsNew<BlockFollowerWorkflow>(network, actionQueue, toStart);
};

/** The follower as it ran before `startedByNextRound`: start activities of their own, a few in flight. */
async function followWithStarter(network: string, actionQueue: string | undefined) {
  const starter = new RunStarter(actionQueue);
  for (let round = 0; round < roundsPerRun; round++) {
    // The runs start while the next blocks are read: a round never waits on an account's burst.
    await starter.add(await followBlocks(network));
    if (workflowInfo().continueAsNewSuggested) break;
  }
  await starter.drain();
  await continueAsNew<BlockFollowerWorkflow>(network, actionQueue);
}

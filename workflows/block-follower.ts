import { continueAsNew, proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
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
 * Follows one Neo network's blocks (workflow id `blocks_<magic>_<task queue>`): each round reads the new
 * blocks once, records the runs of every matching automation with the cursor, and starts their
 * actions. The cursor lives in PostgreSQL, committed with the runs. It runs on a task queue of its
 * own (src/temporal/task-queues.ts); its actions run on `actionQueue`, the deployment's.
 */
export const blockFollower: BlockFollowerWorkflow = async (network, actionQueue) => {
  const starter = new RunStarter(actionQueue);
  for (let round = 0; round < roundsPerRun; round++) {
    // The runs start while the next blocks are read: a round never waits on an account's burst.
    await starter.add(await followBlocks(network));
    if (workflowInfo().continueAsNewSuggested) break;
  }
  await starter.drain();
  await continueAsNew<BlockFollowerWorkflow>(network, actionQueue);
};

import {
  ActivityFailure,
  continueAsNew,
  proxyActivities,
  proxyLocalActivities,
  sleep,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import { endStatus } from '../src/shared/workflow-attributes.ts';
import { rootMessage } from './root-message.ts';
import { inTurn } from './in-turn.ts';
import { RunStarter } from './start-runs.ts';
import { replayStatus } from '../src/shared/outcomes.ts';
import type { ReplayBlocksWorkflow } from '../src/shared/workflow-signatures.ts';

/**
 * A page reads up to 100 blocks (two RPC calls each) and heartbeats after each, so a lost worker
 * is noticed within seconds and the page is read again from the row's progress. A node that fails
 * for minutes on end fails the replay, with its cause on its row, rather than holding it running.
 */
const { replayPage } = proxyActivities<Activities>({
  startToCloseTimeout: '5 minutes',
  heartbeatTimeout: '10 seconds',
  retry: {
    initialInterval: '1 second',
    maximumInterval: '30 seconds',
    backoffCoefficient: 2,
    maximumAttempts: 20,
    // A contract updated since the page's first block (replay-manifests.ts): no retry decodes it.
    nonRetryableErrorTypes: ['ReplayUndecodableError'],
  },
});

const { failReplay } = proxyLocalActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { maximumAttempts: 10, initialInterval: '1 second', maximumInterval: '10 seconds' },
});

/** Pages between continue-as-new: a 100,000-block replay is at least 1,000 of them. */
const pagesPerRun = 200;

/**
 * One replay of a block range (workflow id = the replay's id), on the deployment's task queue, never
 * the follower's: page after page it records the runs the range fires and starts their actions,
 * waiting whenever the follower lags or the account has too many runs in flight (replay-steps.ts).
 * Its progress lives on its row; this workflow holds none. How it ended is set as `NeoflowStatus`.
 */
export const replayBlocks: ReplayBlocksWorkflow = async (replayId) => {
  const starter = new RunStarter();
  for (let page = 0; page < pagesPerRun; page++) {
    let step: Awaited<ReturnType<Activities['replayPage']>>;
    try {
      // In its account's turn: refused while the account holds its share of activity slots.
      step = await inTurn(() => replayPage(replayId));
    } catch (error) {
      if (!(error instanceof ActivityFailure)) throw error;
      await failReplay(replayId, rootMessage(error));
      upsertSearchAttributes([endStatus(replayStatus.failed)]);
      return replayStatus.failed;
    }
    await starter.add(step.runs);
    if (step.kind === 'done') {
      await starter.drain();
      upsertSearchAttributes([endStatus(replayStatus.completed)]);
      return replayStatus.completed;
    }
    if (step.kind === 'wait') await sleep(step.waitMs);
    if (workflowInfo().continueAsNewSuggested) break;
  }
  await starter.drain();
  return continueAsNew<ReplayBlocksWorkflow>(replayId);
};

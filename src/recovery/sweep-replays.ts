import type { SearchAttributePair } from '@temporalio/common';
import { failReplay, runningReplaysPage } from '../automations/replays/replay.sql.ts';
import { labelAttributes } from '../shared/workflow-attributes.ts';
import { rowSweep } from './row-sweep.ts';
import { workflowStanding } from '../shared/outcomes.ts';

/** A replay whose workflow the sweep starts, labelled as its API start would have. */
interface UnstartedReplay {
  replayId: string;
  labels: SearchAttributePair[];
}

/**
 * One page of the replays still `running` once `graceMs` has passed, each held against its
 * workflow (id = replay id): one never started, or whose history is gone, is handed back to be
 * started, and goes on from its row's progress; one closed with its row still running (terminated
 * by an operator) fails with why, which frees its automation for another replay.
 */
export const sweepReplays = rowSweep(runningReplaysPage, async (em, row, state) => {
  if (state.state === workflowStanding.missing) {
    const labels = labelAttributes({ accountId: row.account_id, automationId: row.automation_id, trigger: 'replay' });
    const replay: UnstartedReplay = { replayId: row.id, labels };
    return { start: replay };
  }
  if (state.state !== workflowStanding.closed) return undefined;
  await failReplay(em, row.id, `The replay could not go on: ${state.reason}.`);
  return 'ended';
});

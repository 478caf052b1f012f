import type { EntityManager } from '@mikro-orm/postgresql';
import type { Client } from '@temporalio/client';
import type { SearchAttributePair } from '@temporalio/common';
import { failReplay, runningReplaysPage } from '../automations/replays/replay.sql.ts';
import type { Logger } from '../log.ts';
import { labelAttributes } from '../shared/workflow-attributes.ts';
import { pageSize, type Keyset, type SweptPage } from './keyset.ts';
import { holdAgainstWorkflows } from './hold-against-workflows.ts';
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
export async function sweepReplays(
  em: EntityManager,
  client: Client,
  graceMs: number,
  after: Keyset,
  log: Pick<Logger, 'warn'>,
): Promise<SweptPage<UnstartedReplay>> {
  const rows = await runningReplaysPage(em, graceMs / 1000, after, pageSize);
  return holdAgainstWorkflows(client, log, rows, async (row, state) => {
    if (state.state === workflowStanding.missing) {
      const labels = labelAttributes({ accountId: row.account_id, automationId: row.automation_id, trigger: 'replay' });
      return { start: { replayId: row.id, labels } };
    }
    if (state.state !== workflowStanding.closed) return undefined;
    await failReplay(em, row.id, `The replay could not go on: ${state.reason}.`);
    return 'ended';
  });
}

import { patched, proxyLocalActivities } from '@temporalio/workflow';
import type { Keyset, ReconcilerActivities } from '../src/recovery/reconciler-activities.ts';
import { executeFunction } from './execute-function.ts';
import { replayBlocks } from './replay-blocks.ts';
import { RunStarter } from './start-runs.ts';
import { startNotifications } from './start-notifications.ts';
import { startOnce } from './start-once.ts';

/** Each page asks Temporal about up to 100 workflows or schedules, a few at a time. */
const {
  stopRemovedNetworks,
  sweepAutomations,
  sweepTriggerRemovals,
  convergeBlockFollower,
  convergePricePollers,
  sweepExecutions,
  sweepRuns,
  sweepNotifications,
  sweepReplays,
  purgeAuditEvents,
} = proxyLocalActivities<ReconcilerActivities>({
  startToCloseTimeout: '60 seconds',
  retry: { maximumAttempts: 3, initialInterval: '1 second' },
});

const firstKeyset: Keyset = { at: '-infinity', id: '' };

/** A loop that began its pass on code without this step replays it without (the patch's marker). */
const removedNetworksStopped = 'removed-networks-stopped';
const auditEventsPurged = 'audit-events-purged';

/**
 * One pass of the reconciler (recoveryLoop): rows are the truth, and Temporal is made to
 * match them, every row in turn, page by page over an index.
 * - Automations: those of a network no longer configured moved to `error` (as the API does at its
 *   start), each one's schedule as its row says, the triggers of deleted or retyped
 *   automations stopped, the block follower running while any automation watches blocks, one
 *   price poller running for each source active automations read.
 * - Running runs and executions, in the order they started, each held against its workflow (the
 *   record's id is the workflow id): never started, it is started; closed without its end stored,
 *   the row is ended; still running, it is left to run.
 * - Notifications recorded whose delivery never began: started, or failed if their workflow closed.
 * - Replays running on their rows: started again if their workflow is gone, failed if it closed.
 * - Audit events past NEOFLOW_AUDIT_RETENTION_DAYS: deleted, a bounded number a pass.
 */
export async function recoverySweep(): Promise<void> {
  if (patched(removedNetworksStopped)) await stopRemovedNetworks();
  for (let after: string | null = ''; after !== null;) after = await sweepAutomations(after);
  await sweepTriggerRemovals();
  await convergeBlockFollower();
  await convergePricePollers();
  const starter = new RunStarter(undefined, true);
  for (let after: Keyset | null = firstKeyset; after;) {
    const page: Awaited<ReturnType<ReconcilerActivities['sweepRuns']>> = await sweepRuns(after);
    await starter.add(page.unstarted);
    after = page.next;
  }
  await starter.drain();
  for (let after: Keyset | null = firstKeyset; after;) {
    const page: Awaited<ReturnType<ReconcilerActivities['sweepExecutions']>> = await sweepExecutions(after);
    for (const { executionId, labels } of page.unstarted) await startOnce(executeFunction, executionId, labels);
    after = page.next;
  }
  for (let after: Keyset | null = firstKeyset; after;) {
    const page: Awaited<ReturnType<ReconcilerActivities['sweepNotifications']>> = await sweepNotifications(after);
    await startNotifications(page.unstarted);
    after = page.next;
  }
  for (let after: Keyset | null = firstKeyset; after;) {
    const page: Awaited<ReturnType<ReconcilerActivities['sweepReplays']>> = await sweepReplays(after);
    for (const { replayId, labels } of page.unstarted) await startOnce(replayBlocks, replayId, labels);
    after = page.next;
  }
  if (patched(auditEventsPurged)) await purgeAuditEvents();
}

/**
 * recovery/: the reconciler, which makes Temporal match the rows. Every API start asks
 * recovery-loop.ts to start its loop workflow; each pass of the loop runs these activities: the
 * automations of networks no longer configured moved to `error` (network-removal.control.ts), the
 * automations' schedules, pollers and follower converged with their rows (sweep-automations.ts,
 * converge-price-pollers.ts), and the executions, runs, replays and notifications whose workflow
 * never started or has closed finished (sweep-*.ts over row-sweep.ts), a page at a time; audit
 * events past their retention are deleted (purge-audit-events.ts).
 */
import { log } from '@temporalio/activity';
import type { Logger } from '../log.ts';
import { TriggerControl } from '../automations/triggers.control.ts';
import { stopAutomationsOfRemovedNetworks } from '../automations/network-removal.control.ts';
import type { Keyset } from './keyset.ts';
import { sweepAutomations, sweepTriggerRemovals } from './sweep-automations.ts';
import { convergePricePollers } from './converge-price-pollers.ts';
import { sweepExecutions } from './sweep-executions.ts';
import { sweepNotifications } from './sweep-notifications.ts';
import { sweepReplays } from './sweep-replays.ts';
import { sweepRuns } from './sweep-runs.ts';
import { purgeExpiredAuditEvents } from './purge-audit-events.ts';
import type { ActivityDeps } from '../../activities/index.ts';

export type { Keyset } from './keyset.ts';

type ReconcilerDeps = Pick<
  ActivityDeps,
  'orm' | 'temporal' | 'taskQueue' | 'networks' | 'recovery' | 'automations' | 'egress' | 'masterKeys' | 'receipts'
>;

/**
 * What the reconciler writes Temporal's state with: the process's one `TriggerControl`. The API
 * process hands its own in (src/app/main.ts); a worker process has none else, and builds it here,
 * once, as its activities are made once.
 */
export type ReconcilerControl = TriggerControl;

/** The running activity's logger: what a sweep tells carries the activity it was told in. */
const activityLog: Pick<Logger, 'warn'> = { warn: (message, fields) => void log.warn(message, fields) };

function reconcilerControl(deps: ReconcilerDeps): ReconcilerControl {
  return new TriggerControl({
    client: deps.temporal,
    taskQueue: deps.taskQueue,
    catchupWindowMs: deps.automations.catchupWindowMs,
    networks: deps.networks.pools,
    egress: deps.egress,
    log: activityLog,
  });
}

/**
 * The recovery sweep's activities: each checks one page of rows against Temporal. Rows are read
 * and written outside any transaction, so no connection is held while Temporal answers. The
 * worker registers them beside the others; they live here, not in activities/, because they write
 * schedules and pollers as the API side does (the control layer, docs/architecture.md).
 */
export function createReconcilerActivities(deps: ReconcilerDeps, given?: ReconcilerControl) {
  const em = () => deps.orm.em.fork();
  const control = given ?? reconcilerControl(deps);
  // The executions it ends lost are signed as a run's end is (lostEndReceipt, src/functions/execution-receipt.ts).
  const ends = { networks: deps.networks, receipts: deps.receipts };
  const executions = sweepExecutions(ends);
  const runs = sweepRuns(ends);
  return {
    sweepExecutions: (after: Keyset) => executions(em(), deps.temporal, deps.recovery.graceMs, after, activityLog),
    sweepRuns: (after: Keyset) => runs(em(), deps.temporal, deps.recovery.graceMs, after, activityLog),
    sweepReplays: (after: Keyset) => sweepReplays(em(), deps.temporal, deps.recovery.graceMs, after, activityLog),
    sweepNotifications: (after: Keyset) =>
      sweepNotifications(em(), deps.temporal, deps.recovery.graceMs, after, activityLog),

    async stopRemovedNetworks() {
      const stopped = await stopAutomationsOfRemovedNetworks(em(), control);
      if (stopped > 0) log.warn('automations of networks no longer configured moved to error', { stopped });
    },

    async sweepAutomations(after: string) {
      const page = await sweepAutomations(em(), control, after);
      for (const { automationId, error } of page.failed) log.warn('trigger not converged', { automationId, error });
      return page.next;
    },

    convergeBlockFollower: () => control.blockFollowers.ensureWatched(em()),
    convergePricePollers: () =>
      convergePricePollers(
        em(),
        control,
        deps.masterKeys,
        (automationId, error) => void log.warn('price source not named', { automationId, error }),
      ),
    sweepTriggerRemovals: () => sweepTriggerRemovals(em(), control),
    purgeAuditEvents: () => purgeExpiredAuditEvents(em(), deps.recovery.auditRetentionDays),
  };
}

export type ReconcilerActivities = ReturnType<typeof createReconcilerActivities>;

import { log } from '@temporalio/activity';
import { TriggerControl } from '../automations/triggers.control.ts';
import type { Keyset } from './keyset.ts';
import { convergeBlockFollower, sweepAutomations, sweepTriggerRemovals } from './sweep-automations.ts';
import { convergePricePollers } from './converge-price-pollers.ts';
import { sweepExecutions } from './sweep-executions.ts';
import { sweepNotifications } from './sweep-notifications.ts';
import { sweepReplays } from './sweep-replays.ts';
import { sweepRuns } from './sweep-runs.ts';
import type { ActivityDeps } from '../../activities/index.ts';

export type { Keyset } from './keyset.ts';

type ReconcilerDeps = Pick<
  ActivityDeps,
  'orm' | 'temporal' | 'taskQueue' | 'neo' | 'recovery' | 'automations' | 'egress' | 'masterKeys'
>;

/**
 * The recovery sweep's activities: each checks one page of rows against Temporal. Rows are read
 * and written outside any transaction, so no connection is held while Temporal answers. The
 * worker registers them beside the others; they live here, not in activities/, because they write
 * schedules and pollers as the API side does (the control layer, docs/architecture.md).
 */
export function createReconcilerActivities(deps: ReconcilerDeps) {
  const em = () => deps.orm.em.fork();
  const control = new TriggerControl({
    client: deps.temporal,
    taskQueue: deps.taskQueue,
    catchupWindowMs: deps.automations.catchupWindowMs,
    neo: deps.neo,
    egress: deps.egress,
    log: { warn: (message, fields) => void log.warn(message, fields) },
  });
  return {
    sweepExecutions: (after: Keyset) => sweepExecutions(em(), deps.temporal, deps.recovery.graceMs, after, control.log),
    sweepRuns: (after: Keyset) => sweepRuns(em(), deps.temporal, deps.recovery.graceMs, after, control.log),
    sweepReplays: (after: Keyset) => sweepReplays(em(), deps.temporal, deps.recovery.graceMs, after, control.log),
    sweepNotifications: (after: Keyset) =>
      sweepNotifications(em(), deps.temporal, deps.recovery.graceMs, after, control.log),

    async sweepAutomations(after: string) {
      const page = await sweepAutomations(em(), control, after);
      for (const { automationId, error } of page.failed) log.warn('trigger not converged', { automationId, error });
      return page.next;
    },

    convergeBlockFollower: () => convergeBlockFollower(em(), control),
    convergePricePollers: () =>
      convergePricePollers(
        em(),
        control,
        deps.masterKeys,
        (automationId, error) => void log.warn('price source not named', { automationId, error }),
      ),
    sweepTriggerRemovals: () => sweepTriggerRemovals(em(), control),
  };
}

export type ReconcilerActivities = ReturnType<typeof createReconcilerActivities>;

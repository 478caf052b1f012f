import type { EntityManager } from '@mikro-orm/postgresql';
import { leaveToSweepIfDown } from '../temporal/leave-to-sweep.ts';
import { Automation } from './model/automation.entity.ts';
import { stopWithError } from './notifications/error-event.ts';
import { startDeliveries } from './notifications/deliveries.control.ts';
import { applyTrigger, type TriggerControl } from './triggers.control.ts';

/** Automations moved per page: a page's rows are read at once, each moved in its own transaction. */
const pageSize = 100;

/**
 * The active automations of a network no longer configured (removed from NEOFLOW_NETWORKS) can
 * neither follow nor send: each moves to `error` (`network_unavailable`, the message naming the
 * network) rather than stay active and silently idle, its `error` rules are told, and its trigger
 * stops as for any move to `error`. The API does this at its start and the reconciler at each pass
 * (with the worker's configuration: a deployment that restarts only its workers, or has no API of
 * its own, is covered too); when nothing is to move, a pass costs the one query below. Inactive
 * ones stay inactive, and none comes back by itself when its network is configured again:
 * activating one is refused while its network is missing (automations.service.ts), allowed once
 * it is listed again. Returns how many were found active (a PATCH meanwhile may have made one
 * inactive instead).
 */
export async function stopAutomationsOfRemovedNetworks(em: EntityManager, control: TriggerControl): Promise<number> {
  const configured = control.networks.map(({ name }) => name);
  let stopped = 0;
  for (;;) {
    // Each one read leaves `active` (moved, or changed by a PATCH meanwhile): the pages end.
    const page = await em
      .fork()
      .find(
        Automation,
        { status: 'active', network: { $nin: configured } },
        { orderBy: { id: 'asc' }, limit: pageSize },
      );
    for (const automation of page) {
      const errorDetails = {
        reason: 'network_unavailable' as const,
        message: `The network "${automation.network}" this automation runs on is no longer configured; configure it again (NEOFLOW_NETWORKS) and activate the automation, or delete it.`,
      };
      const notifications = await stopWithError(em.fork(), { id: automation.id, status: 'active' }, errorDetails);
      Object.assign(automation, { status: 'error', errorDetails });
      await leaveToSweepIfDown(control, async () => {
        await applyTrigger(control, automation, {});
        await startDeliveries(control.client, control.taskQueue, notifications);
      });
    }
    stopped += page.length;
    if (page.length < pageSize) return stopped;
  }
}

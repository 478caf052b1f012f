import type { EntityManager } from '@mikro-orm/postgresql';
import { scheduleRowsPage } from '../automations/model/automation.sql.ts';
import { lastRunTimes } from '../automations/runs/fires.ts';
import { convergeTrigger, removeTrigger, type TriggerControl } from '../automations/triggers.control.ts';
import { callsInFlight, pageSize } from './keyset.ts';
import { dropTriggerRemoval, triggerRemovals } from './trigger-removal.sql.ts';
import { mapBounded } from './workflow-state.ts';

/** A page of automations made to run in Temporal as their rows say, and where the next starts. */
interface ConvergedPage {
  /** Automations whose trigger Temporal refused to take, with why: they are tried again next pass. */
  failed: { automationId: string; error: string }[];
  next: string | null;
}

/**
 * A pass describes a rotating slice of the schedules whatever their listing shows: what a listing
 * lacks (policies, remaining actions, the action's task queue) is read in full once a cycle of
 * passes. The slice is a tenth, but at most about `describedPerPass` schedules: a describe costs
 * the Temporal server a query of the schedule's workflow (~4.5 ms), so a pass over 3,000 schedules
 * describing a tenth cost it ~1.7 % of a core; bounded, the cost stays flat as schedules grow and
 * the cycle grows instead (3,000 schedules: 60 passes, 30 minutes at the default interval).
 */
const minPassesPerCycle = 10;
const describedPerPass = 50;

/**
 * One page of the schedule automations, by id: each schedule made to match its row
 * (convergeTrigger) and checked against the runs it recorded. The first page (`after` empty) lists the
 * namespace's schedules, a page of 1,000 an RPC, for the whole pass: a schedule the listing
 * shows as its row asks (listedAsRow) is not described, unless its turn in the rotating slice
 * came. One automation that cannot be converged does not stop the others.
 */
export async function sweepAutomations(em: EntityManager, control: TriggerControl, after: string) {
  // Only a schedule has a trigger of its own in Temporal to converge (convergeTrigger): the other
  // kinds are served by the follower and the pollers, converged below (10k automations: 7,000
  // rows a pass no longer read for nothing).
  const automations = await scheduleRowsPage(em, after, pageSize);
  const lastRuns = await lastRunTimes(
    em,
    automations.map((automation) => automation.id),
  );
  const listing = await control.schedules.listing(after === '');
  const failed: ConvergedPage['failed'] = [];
  await mapBounded(automations, callsInFlight, async (automation) => {
    const lastRun = lastRuns.get(automation.id) ?? null;
    const summary = listing.schedules.get(automation.id);
    const settled =
      summary &&
      !inFullSlice(automation.id, listing.pass, passesPerCycle(listing.schedules.size)) &&
      control.schedules.listedAsRow(automation, summary, listing.at, lastRun);
    if (settled) return;
    await convergeTrigger(control, automation, lastRun).catch((error: unknown) => {
      failed.push({ automationId: automation.id, error: String(error) });
    });
  });
  const last = automations.at(-1);
  return { failed, next: automations.length < pageSize || !last ? null : last.id } satisfies ConvergedPage;
}

/** How many passes a cycle of full describes takes for `listed` schedules. */
export const passesPerCycle = (listed: number) => Math.max(minPassesPerCycle, Math.ceil(listed / describedPerPass));

/** Whether the pass numbered `pass` describes this automation's schedule in full: one in `passes`. */
export function inFullSlice(automationId: string, pass: number, passes: number) {
  let hash = 0;
  for (const char of automationId) hash = (hash * 31 + char.charCodeAt(0)) % passes;
  return hash === pass % passes;
}

/**
 * Stops in Temporal the triggers that deleted or retyped automations left (a request that could
 * not stop them, or a crash after its commit), page by page, and drops each record once done.
 */
export async function sweepTriggerRemovals(em: EntityManager, control: TriggerControl) {
  let after = { automationId: '', triggerType: '' };
  for (;;) {
    const removals = await triggerRemovals(em, after, pageSize);
    await mapBounded(removals, callsInFlight, async (removal) => {
      if (!removal.current) await removeTrigger(control, removal.automationId, removal.triggerType);
      await dropTriggerRemoval(em, removal);
    });
    const last = removals.at(-1);
    if (removals.length < pageSize || !last) return;
    after = last;
  }
}

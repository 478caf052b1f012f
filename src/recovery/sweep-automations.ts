import type { EntityManager } from '@mikro-orm/postgresql';
import { Automation } from '../automations/automation.entity.ts';
import { lastRunTimes } from '../automations/runs.ts';
import { convergeTrigger, ensureBlockFollower, removeTrigger, type TriggerControl } from '../automations/triggers.ts';
import { callsInFlight, pageSize } from './keyset.ts';
import { dropTriggerRemoval, triggerRemovals } from '../automations/trigger-removal.sql.ts';
import { blockTriggerTypes } from '../automations/state-trigger-kinds.ts';
import { mapBounded } from './workflow-state.ts';

/** A page of automations made to run in Temporal as their rows say, and where the next starts. */
interface ConvergedPage {
  /** Automations whose trigger Temporal refused to take, with why: they are tried again next pass. */
  failed: { automationId: string; error: string }[];
  next: string | null;
}

/**
 * One page of every automation, by id: each trigger made to match its row (convergeTrigger), a
 * schedule's checked against the runs it recorded too. One automation that cannot be converged
 * does not stop the others.
 */
export async function sweepAutomations(em: EntityManager, control: TriggerControl, after: string) {
  const automations = await em.find(Automation, { id: { $gt: after } }, { orderBy: { id: 'asc' }, limit: pageSize });
  const schedules = automations.filter((automation) => automation.triggerType === 'schedule');
  const lastRuns = await lastRunTimes(
    em,
    schedules.map((automation) => automation.id),
  );
  const failed: ConvergedPage['failed'] = [];
  await mapBounded(automations, callsInFlight, (automation) =>
    convergeTrigger(control, automation, lastRuns.get(automation.id) ?? null).catch((error: unknown) => {
      failed.push({ automationId: automation.id, error: String(error) });
    }),
  );
  const last = automations.at(-1);
  return { failed, next: automations.length < pageSize || !last ? null : last.id } satisfies ConvergedPage;
}

/** The network's block follower runs while any active automation watches blocks. */
export async function convergeBlockFollower(em: EntityManager, control: TriggerControl) {
  const watching = await em.count(Automation, { status: 'active', triggerType: { $in: blockTriggerTypes } });
  if (watching > 0) await ensureBlockFollower(control);
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

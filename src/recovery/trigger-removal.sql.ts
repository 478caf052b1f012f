import type { EntityManager } from '@mikro-orm/postgresql';
import type { TriggerType } from '../automations/model/trigger.schemas.ts';

/**
 * The triggers that rows no longer have: PostgreSQL records one (automation_trigger_removals, a
 * trigger of its own on `automations`) whenever an automation is deleted, its account with it, or
 * its trigger type changes. The reconciler stops each in Temporal, then drops the record.
 */
interface TriggerRemoval {
  automationId: string;
  triggerType: TriggerType;
  /** The automation has this trigger type again (changed back): nothing to stop. */
  current: boolean;
}

const pageSql = `select r."automation_id", r."trigger_type",
  exists (select 1 from "automations" a where a."id" = r."automation_id" and a."trigger_type" = r."trigger_type") as "current"
from "automation_trigger_removals" r
where (r."automation_id", r."trigger_type") > (?, ?)
order by r."automation_id", r."trigger_type" limit ?`;

export async function triggerRemovals(
  em: EntityManager,
  after: { automationId: string; triggerType: string },
  limit: number,
): Promise<TriggerRemoval[]> {
  const rows = await em.execute<{ automation_id: string; trigger_type: TriggerType; current: boolean }[]>(pageSql, [
    after.automationId,
    after.triggerType,
    limit,
  ]);
  return rows.map((row) => ({ automationId: row.automation_id, triggerType: row.trigger_type, current: row.current }));
}

export async function dropTriggerRemoval(em: EntityManager, removal: TriggerRemoval) {
  await em.execute(`delete from "automation_trigger_removals" where "automation_id" = ? and "trigger_type" = ?`, [
    removal.automationId,
    removal.triggerType,
  ]);
}

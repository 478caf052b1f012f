import type { EntityManager } from '@mikro-orm/postgresql';
import { AutomationRun } from '../run.entity.ts';
import { recordNotifications } from './record.ts';
import { lookBack, runEndEvents } from './streaks.ts';

export interface RunEndNotices {
  /** Notifications to deliver, each by its own workflow. */
  notifications: string[];
  /** The automation pays with its signer and watches its balance: check it now. */
  checkGas: boolean;
}

const none: RunEndNotices = { notifications: [], checkGas: false };

/** The statuses of the runs that ended before `run`, newest first. */
async function statusesBefore(em: EntityManager, run: AutomationRun, count: number): Promise<string[]> {
  const rows = await em.execute<{ status: string }[]>(
    `select "status" from "automation_runs"
      where "automation_id" = ? and "status" <> 'running' and "id" <> ?
        and ("completed_at" < ? or ("completed_at" = ? and "id" < ?))
      order by "completed_at" desc, "id" desc limit ?`,
    [run.automation.id, run.id, run.completedAt, run.completedAt, run.id, count],
  );
  return rows.map((row) => row.status);
}

/**
 * Records the failure and recovery notifications a run's end calls for (derived from the runs'
 * statuses alone, so a repeated step decides the same), and says whether to check the signer's gas.
 */
export async function noteRunEnd(em: EntityManager, runId: string): Promise<RunEndNotices> {
  const run = await em.findOne(AutomationRun, { id: runId }, { populate: ['automation'] });
  if (!run || run.status === 'running') return none;
  const { automation } = run;
  const rules = automation.notify;
  const checkGas = automation.action.type === 'contract' && rules.some((rule) => rule.on.includes('low_gas'));
  if (!rules.some((rule) => rule.on.includes('failure') || rule.on.includes('recovery'))) {
    return { notifications: [], checkGas };
  }
  const before = await statusesBefore(em, run, lookBack(rules));
  // Each rule is told with its own streak; the ids answered are those of the whole cause.
  const notifications = new Set<string>();
  for (const { rule, event } of runEndEvents(rules, run.status, before)) {
    const failures = event === 'failure' ? (rules[rule]!.afterFailures ?? 1) : undefined;
    const cause = { event, run, ...(failures === undefined ? {} : { failures }) };
    for (const id of await recordNotifications(em, automation, [rule], `${event}:${run.id}`, cause)) {
      notifications.add(id);
    }
  }
  return { notifications: [...notifications], checkGas };
}

import type { EntityManager } from '@mikro-orm/postgresql';
import { sendsTransactions } from '../automations.schemas.ts';
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

/**
 * Where the run stands among the failures in a row around it, as ended so far (each count up to
 * `count`), and the run whose end began that streak (`start` for the automation's first runs). Read
 * after the run's own end is stored: of runs ending together, the last to read sees all their ends.
 */
export const streakSql = `with "this" as materialized (
  select "automation_id", "completed_at", "id" from "automation_runs" where "id" = ?
), "began" as (
  (select r."completed_at", r."id" from "automation_runs" r
    where r."automation_id" = (select "automation_id" from "this")
      and r."status" <> 'running' and r."status" <> 'failure'
      and (r."completed_at", r."id") < ((select "completed_at" from "this"), (select "id" from "this"))
    order by r."completed_at" desc, r."id" desc limit 1)
  union all select '-infinity'::timestamptz, ''
  order by 1 desc, 2 desc limit 1
), "ended" as (
  (select r."completed_at", r."id" from "automation_runs" r
    where r."automation_id" = (select "automation_id" from "this")
      and r."status" <> 'running' and r."status" <> 'failure'
      and (r."completed_at", r."id") > ((select "completed_at" from "this"), (select "id" from "this"))
    order by r."completed_at", r."id" limit 1)
  union all select 'infinity'::timestamptz, ''
  order by 1, 2 limit 1
), "failures" as (
  select r."completed_at", r."id" from "automation_runs" r
  where r."automation_id" = (select "automation_id" from "this") and r."status" = 'failure'
    and (r."completed_at", r."id") > ((select "completed_at" from "began"), (select "id" from "began"))
    and (r."completed_at", r."id") < ((select "completed_at" from "ended"), (select "id" from "ended"))
  order by r."completed_at", r."id" limit ?
)
select (select "id" from "began") as "began_after",
  (select count(*) from "failures"
    where ("completed_at", "id") < ((select "completed_at" from "this"), (select "id" from "this")))::int as "before",
  (select count(*) from "failures")::int as "length"`;

async function streakOf(em: EntityManager, runId: string, count: number) {
  const [row] = await em.execute<{ began_after: string; before: number; length: number }[]>(streakSql, [
    runId,
    count + 1,
  ]);
  return { beganAfter: row!.began_after || 'start', before: row!.before, length: row!.length };
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
  const checkGas = sendsTransactions(automation.action) && rules.some((rule) => rule.on.includes('low_gas'));
  if (!rules.some((rule) => rule.on.includes('failure') || rule.on.includes('recovery'))) {
    return { notifications: [], checkGas };
  }
  const streak = await streakOf(em, run.id, lookBack(rules));
  // Each rule is told with its own streak; the ids answered are those of the whole cause. A
  // failure is told once per streak, whichever of its runs saw it reach the threshold.
  const notifications = new Set<string>();
  for (const { rule, event } of runEndEvents(rules, run.status, streak)) {
    const failures = event === 'failure' ? (rules[rule]!.afterFailures ?? 1) : undefined;
    const cause = { event, run, ...(failures === undefined ? {} : { failures }) };
    const eventKey = event === 'failure' ? `failure:after:${streak.beganAfter}` : `${event}:${run.id}`;
    for (const id of await recordNotifications(em, automation, [rule], eventKey, cause)) {
      notifications.add(id);
    }
  }
  return { notifications: [...notifications], checkGas };
}

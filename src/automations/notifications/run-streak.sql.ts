import type { EntityManager } from '@mikro-orm/postgresql';
import { runStatus } from '../../shared/outcomes.ts';

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
      and r."status" <> '${runStatus.running}' and r."status" <> '${runStatus.failure}'
      and (r."completed_at", r."id") < ((select "completed_at" from "this"), (select "id" from "this"))
    order by r."completed_at" desc, r."id" desc limit 1)
  union all select '-infinity'::timestamptz, ''
  order by 1 desc, 2 desc limit 1
), "ended" as (
  (select r."completed_at", r."id" from "automation_runs" r
    where r."automation_id" = (select "automation_id" from "this")
      and r."status" <> '${runStatus.running}' and r."status" <> '${runStatus.failure}'
      and (r."completed_at", r."id") > ((select "completed_at" from "this"), (select "id" from "this"))
    order by r."completed_at", r."id" limit 1)
  union all select 'infinity'::timestamptz, ''
  order by 1, 2 limit 1
), "failures" as (
  select r."completed_at", r."id" from "automation_runs" r
  where r."automation_id" = (select "automation_id" from "this") and r."status" = '${runStatus.failure}'
    and (r."completed_at", r."id") > ((select "completed_at" from "began"), (select "id" from "began"))
    and (r."completed_at", r."id") < ((select "completed_at" from "ended"), (select "id" from "ended"))
  order by r."completed_at", r."id" limit ?
)
select (select "id" from "began") as "began_after",
  (select count(*) from "failures"
    where ("completed_at", "id") < ((select "completed_at" from "this"), (select "id" from "this")))::int as "before",
  (select count(*) from "failures")::int as "length"`;

/** The streak's figures, each failure count up to `limit`. */
export async function failureStreakRow(em: EntityManager, runId: string, limit: number) {
  const [row] = await em.execute<{ began_after: string; before: number; length: number }[]>(streakSql, [runId, limit]);
  return row;
}

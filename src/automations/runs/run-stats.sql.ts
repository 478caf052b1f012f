import type { EntityManager } from '@mikro-orm/postgresql';
import { runStatus } from '../../shared/outcomes.ts';

/** The run history in figures, as `runStats` reads it. */
interface RunStatsRow {
  successCount: number;
  failureCount: number;
  lastExecution: Date | null;
  lastStatus: typeof runStatus.success | typeof runStatus.failure | null;
}

/** Counted from the (automation_id, started_at) index alone, which holds each run's status. */
export const statsQuery = `select
    count(*) filter (where "status" = '${runStatus.success}')::int as "successCount",
    count(*) filter (where "status" = '${runStatus.failure}')::int as "failureCount",
    max("started_at") as "lastExecution",
    (select "status" from "automation_runs" where "automation_id" = ? and "status" <> '${runStatus.running}'
      order by "started_at" desc limit 1) as "lastStatus"
  from "automation_runs" where "automation_id" = ?`;

export async function runStats(em: EntityManager, automationId: string): Promise<RunStatsRow | undefined> {
  const [row] = await em.execute<RunStatsRow[]>(statsQuery, [automationId, automationId]);
  return row;
}

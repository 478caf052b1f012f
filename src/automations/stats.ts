import type { EntityManager } from '@mikro-orm/postgresql';

export interface ExecutionStats {
  lastExecution: string | null;
  lastStatus: 'success' | 'failure' | null;
  successCount: number;
  failureCount: number;
  nextExecution: string | null;
}

/** Counted from the (automation_id, started_at) index alone, which holds each run's status. */
export const statsQuery = `select
    count(*) filter (where "status" = 'success')::int as "successCount",
    count(*) filter (where "status" = 'failure')::int as "failureCount",
    max("started_at") as "lastExecution",
    (select "status" from "automation_runs" where "automation_id" = ? and "status" <> 'running'
      order by "started_at" desc limit 1) as "lastStatus"
  from "automation_runs" where "automation_id" = ?`;

/** The run history in figures; `nextExecution` comes from the trigger (see triggers.ts). */
export async function executionStats(
  em: EntityManager,
  automationId: string,
  nextExecution: Date | null,
): Promise<ExecutionStats> {
  const [row] = await em.execute<
    {
      successCount: number;
      failureCount: number;
      lastExecution: Date | null;
      lastStatus: 'success' | 'failure' | null;
    }[]
  >(statsQuery, [automationId, automationId]);
  return {
    lastExecution: row?.lastExecution ? new Date(row.lastExecution).toISOString() : null,
    lastStatus: row?.lastStatus ?? null,
    successCount: row?.successCount ?? 0,
    failureCount: row?.failureCount ?? 0,
    nextExecution: nextExecution?.toISOString() ?? null,
  };
}

import type { EntityManager } from '@mikro-orm/postgresql';

export interface FunctionStats {
  invocations: { total: number; success: number; failed: number; last24Hours: number };
  averageExecutionTime: number;
  lastInvocation: string | null;
}

interface StatsRow {
  total: string;
  success: string;
  failed: string;
  last_24_hours: string;
  average_ms: string | null;
  last_invocation: Date | null;
}

/** One pass over the function's executions, from the (function_id, started_at) index alone. */
export const functionStatsSql = `select count(*) as total,
       count(*) filter (where status = 'completed') as success,
       count(*) filter (where status = 'failed') as failed,
       count(*) filter (where started_at > now() - interval '24 hours') as last_24_hours,
       round(avg(duration) filter (where status in ('completed', 'failed'))) as average_ms,
       max(started_at) as last_invocation
  from executions where function_id = ?`;

export async function functionStats(em: EntityManager, functionId: string): Promise<FunctionStats> {
  const [row] = await em.getConnection().execute<StatsRow[]>(functionStatsSql, [functionId]);
  return {
    invocations: {
      total: Number(row!.total),
      success: Number(row!.success),
      failed: Number(row!.failed),
      last24Hours: Number(row!.last_24_hours),
    },
    averageExecutionTime: Number(row!.average_ms ?? 0),
    lastInvocation: row!.last_invocation ? new Date(row!.last_invocation).toISOString() : null,
  };
}

/** The newest start time of each function's executions, for list items. */
export async function lastInvocations(em: EntityManager, functionIds: string[]): Promise<Map<string, string>> {
  if (functionIds.length === 0) return new Map();
  const rows = await em
    .getConnection()
    .execute<{ function_id: string; last: Date }[]>(
      `select function_id, max(started_at) as last from executions where function_id in (?) group by function_id`,
      [functionIds],
    );
  return new Map(rows.map((row) => [row.function_id, new Date(row.last).toISOString()]));
}

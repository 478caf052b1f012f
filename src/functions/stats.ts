import type { EntityManager } from '@mikro-orm/postgresql';
import { functionStatsRow, lastStarts } from './execution.sql.ts';

interface FunctionStats {
  invocations: { total: number; success: number; failed: number; last24Hours: number };
  averageExecutionTime: number;
  lastInvocation: string | null;
}

export async function functionStats(em: EntityManager, functionId: string): Promise<FunctionStats> {
  const row = await functionStatsRow(em, functionId);
  return {
    invocations: {
      total: Number(row.total),
      success: Number(row.success),
      failed: Number(row.failed),
      last24Hours: Number(row.last_24_hours),
    },
    averageExecutionTime: Number(row.average_ms ?? 0),
    lastInvocation: row.last_invocation ? new Date(row.last_invocation).toISOString() : null,
  };
}

/** The newest start time of each function's executions, for list items. */
export async function lastInvocations(em: EntityManager, functionIds: string[]): Promise<Map<string, string>> {
  if (functionIds.length === 0) return new Map();
  const rows = await lastStarts(em, functionIds);
  return new Map(rows.map((row) => [row.function_id, new Date(row.last).toISOString()]));
}

import type { EntityManager } from '@mikro-orm/postgresql';
import { runStats } from './run-stats.sql.ts';
import { type runStatus } from '../../shared/outcomes.ts';

export interface ExecutionStats {
  lastExecution: string | null;
  lastStatus: typeof runStatus.success | typeof runStatus.failure | null;
  successCount: number;
  failureCount: number;
  nextExecution: string | null;
}

/** The run history in figures; `nextExecution` comes from the trigger (see triggers.ts). */
export async function executionStats(
  em: EntityManager,
  automationId: string,
  nextExecution: Date | null,
): Promise<ExecutionStats> {
  const row = await runStats(em, automationId);
  return {
    lastExecution: row?.lastExecution ? new Date(row.lastExecution).toISOString() : null,
    lastStatus: row?.lastStatus ?? null,
    successCount: row?.successCount ?? 0,
    failureCount: row?.failureCount ?? 0,
    nextExecution: nextExecution?.toISOString() ?? null,
  };
}

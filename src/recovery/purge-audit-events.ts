import type { EntityManager } from '@mikro-orm/postgresql';
import { purgeAuditEvents } from '../audit/audit-event.sql.ts';

/** Events deleted by one statement, and statements a pass runs at most: 10,000 a pass, a pass every 30 s. */
const batchSize = 1000;
const batchesPerPass = 10;

const dayMs = 24 * 60 * 60 * 1000;

/**
 * Deletes audit events older than `retentionDays` (NEOFLOW_AUDIT_RETENTION_DAYS), oldest first,
 * in bounded batches, each its own short transaction: a backlog (a retention shortened) is worked
 * off over passes, never by one statement that holds the table. Answers how many went.
 */
export async function purgeExpiredAuditEvents(em: EntityManager, retentionDays: number): Promise<number> {
  const before = new Date(Date.now() - retentionDays * dayMs);
  let purged = 0;
  for (let batch = 0; batch < batchesPerPass; batch++) {
    const deleted = await purgeAuditEvents(em, before, batchSize);
    purged += deleted;
    if (deleted < batchSize) break;
  }
  return purged;
}

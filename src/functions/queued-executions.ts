import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError } from '../errors.ts';

/** When to try again: runs of a busy account end in seconds to minutes. */
const retryAfterSeconds = 5;

/**
 * The account's executions recorded and not yet ended, counted up to `limit` (a partial index
 * holds only running rows, so the count reads at most `limit` index entries).
 */
const countSql = `select count(*)::int as "queued" from (
  select 1 from "executions" where "account_id" = ? and "status" = 'running' limit ?) as "running"`;

/**
 * An account with `limit` executions not yet ended is refused another: each waits for its
 * account's share on the workers (a workflow, its timers, its row), so a burst far beyond what it
 * can run costs everyone. Checked before the insert: invokes racing at the limit may pass it by
 * the few that run at once.
 */
export async function assertQueueRoom(em: EntityManager, accountId: string, limit: number) {
  const [row] = await em.execute<{ queued: number }[]>(countSql, [accountId, limit]);
  if (row!.queued < limit) return;
  throw new AppError(
    'execution_queue_full',
    `This account has ${limit} executions not yet ended, the most it may have; retry in ${retryAfterSeconds} s.`,
    { limit, retryAfter: retryAfterSeconds },
    { 'Retry-After': String(retryAfterSeconds) },
  );
}

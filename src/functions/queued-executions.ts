import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError } from '../errors.ts';
import { countQueued } from './execution.sql.ts';

/** When to try again: runs of a busy account end in seconds to minutes. */
const retryAfterSeconds = 5;

/**
 * An account with `limit` executions not yet ended is refused another: each waits for its
 * account's share on the workers (a workflow, its timers, its row), so a burst far beyond what it
 * can run costs everyone. Checked before the insert: invokes racing at the limit may pass it by
 * the few that run at once.
 */
export async function assertQueueRoom(em: EntityManager, accountId: string, limit: number) {
  if ((await countQueued(em, accountId, limit)) < limit) return;
  throw new AppError(
    'execution_queue_full',
    `This account has ${limit} executions not yet ended, the most it may have; retry in ${retryAfterSeconds} s.`,
    { limit, retryAfter: retryAfterSeconds },
    { 'Retry-After': String(retryAfterSeconds) },
  );
}

import type { EntityManager } from '@mikro-orm/postgresql';
import { firstWatchedBlock } from '../model/automation.sql.ts';
import { advanceCursorRow, cursorRow, insertCursor } from './block-cursor.sql.ts';

interface Cursor {
  nextIndex: number;
  /** When it last moved (or was created). */
  advancedAt: Date;
}

/**
 * The next block to read of the network whose cursor is keyed `network` (its magic, as text). A
 * new follower starts at the first block an active automation of the network (`name`, its
 * configured name) watches (armed before the follower ran), else at the chain's current height.
 */
export async function readCursor(
  em: EntityManager,
  key: { network: string; name: string },
  currentHeight: () => Promise<number>,
): Promise<Cursor> {
  const row = await cursorRow(em, key.network);
  if (row) return { nextIndex: row.next_index, advancedAt: new Date(row.updated_at) };
  await insertCursor(em, key, (await firstWatchedBlock(em, key.name)) ?? (await currentHeight()));
  return readCursor(em, key, currentHeight);
}

/**
 * Moves the cursor past `index` inside the caller's transaction. Only from `index` itself: a
 * stale attempt (a worker presumed dead that woke up) fails instead of moving it twice.
 */
export async function advanceCursor(em: EntityManager, key: { network: string; name: string }, index: number) {
  if (!(await advanceCursorRow(em, key, index)))
    throw new Error(`block ${index} of network ${key.name} (${key.network}) was already followed`);
}

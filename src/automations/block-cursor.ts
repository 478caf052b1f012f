import type { EntityManager } from '@mikro-orm/postgresql';

export interface Cursor {
  nextIndex: number;
  /** When it last moved (or was created). */
  advancedAt: Date;
}

/**
 * The next block to read. A new follower starts at the first block an active automation watches
 * (armed before the follower ran), else at the chain's current height.
 */
export async function readCursor(
  em: EntityManager,
  network: string,
  currentHeight: () => Promise<number>,
): Promise<Cursor> {
  const [row] = await em.execute<{ next_index: number; updated_at: Date }[]>(
    `select "next_index", "updated_at" from "block_cursors" where "network" = ?`,
    [network],
  );
  if (row) return { nextIndex: row.next_index, advancedAt: new Date(row.updated_at) };
  const [armed] = await em.execute<{ first: number | null }[]>(
    `select min("watch_from_block") as "first" from "automations"
      where "status" = 'active' and "trigger_type" in ('blockchain', 'transaction')`,
  );
  await em.execute(
    `insert into "block_cursors" ("network", "next_index", "updated_at") values (?, ?, now()) on conflict do nothing`,
    [network, armed?.first ?? (await currentHeight())],
  );
  return readCursor(em, network, currentHeight);
}

/**
 * Moves the cursor past `index` inside the caller's transaction. Only from `index` itself: a
 * stale attempt (a worker presumed dead that woke up) fails instead of moving it twice.
 */
export async function advanceCursor(em: EntityManager, network: string, index: number) {
  const result = await em.execute<{ affectedRows: number }>(
    `update "block_cursors" set "next_index" = ?, "updated_at" = now() where "network" = ? and "next_index" = ?`,
    [index + 1, network, index],
    'run',
  );
  if (result.affectedRows !== 1) throw new Error(`block ${index} of network ${network} was already followed`);
}

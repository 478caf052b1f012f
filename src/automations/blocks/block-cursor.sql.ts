import type { EntityManager } from '@mikro-orm/postgresql';

/** The hand-written statements of the `block_cursors` table: each network's next block to follow. */

export async function cursorRow(em: EntityManager, network: string) {
  const [row] = await em.execute<{ next_index: number; updated_at: Date }[]>(
    `select "next_index", "updated_at" from "block_cursors" where "network" = ?`,
    [network],
  );
  return row;
}

/** The cursor of a network: its magic as text (`network`, the key) and its configured name. */
interface CursorKey {
  network: string;
  name: string;
}

/** Creates the network's cursor at `nextIndex` unless it has one. */
export async function insertCursor(em: EntityManager, { network, name }: CursorKey, nextIndex: number) {
  await em.execute(
    `insert into "block_cursors" ("network", "name", "next_index", "updated_at") values (?, ?, ?, now())
      on conflict do nothing`,
    [network, name, nextIndex],
  );
}

/**
 * Moves the cursor from `index` to the next block, named as configured now (an automation's
 * `followed_until` is its network's cursor by name); false when it no longer stood at `index`.
 */
export async function advanceCursorRow(
  em: EntityManager,
  { network, name }: CursorKey,
  index: number,
): Promise<boolean> {
  const result = await em.execute<{ affectedRows: number }>(
    `update "block_cursors" set "next_index" = ?, "name" = ?, "updated_at" = now()
      where "network" = ? and "next_index" = ?`,
    [index + 1, name, network, index],
    'run',
  );
  return result.affectedRows === 1;
}

/** The next block of the network's cursor (by magic) if it moved in the last 30 seconds; null otherwise. */
export async function movingCursorIndex(em: EntityManager, network: string): Promise<number | null> {
  const [cursor] = await em.execute<{ next: number | null }[]>(
    `select "next_index" as "next" from "block_cursors"
      where "network" = ? and "updated_at" > now() - interval '30 seconds'`,
    [network],
  );
  return cursor?.next ?? null;
}

import type { EntityManager } from '@mikro-orm/postgresql';
import { activeWatcherRows, watcherChangesVersion } from '../model/automation.sql.ts';
import type { Watcher } from './block-matching.ts';

/**
 * The active blockchain and transaction automations as the block follower matches them, held in
 * the worker's memory and read again only when `watcher_changes` moved (migration 0024): one row
 * read a block whatever the number of watchers, instead of every watcher's row (4,000 rows a
 * second at 10,000 automations). The rows stay the truth: the counter is read before the rows, so
 * a change committed meanwhile moves it again and is read at the next block.
 */
export class WatcherIndex {
  #version: string | null = null;
  #watchers: Watcher[] = [];

  /**
   * The active watchers as committed when the counter was read: the same list until they change,
   * so that the matcher indexes them once per change (block-matching.ts), not once per block.
   */
  async current(em: EntityManager): Promise<Watcher[]> {
    const version = await watcherChangesVersion(em);
    // Without the counter's row every read is a change: correct, only dearer.
    if (version !== null && version === this.#version) return this.#watchers;
    const rows = await activeWatcherRows(em);
    this.#watchers = rows.map((row) => ({
      id: row.id,
      account: { id: row.account_id },
      trigger: row.trigger,
      watchFromBlock: row.watch_from_block!,
    }));
    this.#version = version;
    return this.#watchers;
  }
}

import type { EntityManager } from '@mikro-orm/postgresql';
import { activeWatcherRows, watcherChangesVersion } from '../model/automation.sql.ts';
import type { FollowedTrigger } from '../model/trigger.schemas.ts';
import type { Watcher } from './block-matching.ts';

/**
 * The active blockchain and transaction automations of one network (by name) as its block
 * follower matches them, held in
 * the worker's memory and read again only when `watcher_changes` moved (migration 0024): one row
 * read a block whatever the number of watchers, instead of every watcher's row (4,000 rows a
 * second at 10,000 automations). The rows stay the truth: the counter is read before the rows, so
 * a change committed meanwhile moves it again and is read at the next block.
 *
 * A trigger is parsed (its filter values normalised, the accounts they name decoded) once per
 * trigger object, the first time it is matched (match.ts): an automation whose trigger is as it
 * was keeps its object across reads, so one account's change parses only what changed, not
 * every account's filters again. Each network's follower has its own: it reads its network's rows
 * only, so its work does not grow with other networks' watchers.
 */
export class WatcherIndex {
  readonly #network: string;
  #version: string | null = null;
  #watchers: Watcher[] = [];
  /** By automation: its trigger as read last, and as JSON text to tell whether it changed. */
  #triggers = new Map<string, { text: string; trigger: FollowedTrigger }>();

  constructor(network: string) {
    this.#network = network;
  }

  /**
   * The active watchers as committed when the counter was read: the same list until they change,
   * so that the matcher indexes them once per change (block-matching.ts), not once per block.
   */
  async current(em: EntityManager): Promise<Watcher[]> {
    const version = await watcherChangesVersion(em);
    // Without the counter's row every read is a change: correct, only dearer.
    if (version !== null && version === this.#version) return this.#watchers;
    const rows = await activeWatcherRows(em, this.#network);
    const triggers = new Map<string, { text: string; trigger: FollowedTrigger }>();
    this.#watchers = rows.map((row) => {
      const text = JSON.stringify(row.trigger);
      const known = this.#triggers.get(row.id);
      const trigger = known?.text === text ? known.trigger : row.trigger;
      triggers.set(row.id, { text, trigger });
      return { id: row.id, account: { id: row.account_id }, trigger, watchFromBlock: row.watch_from_block! };
    });
    this.#triggers = triggers;
    this.#version = version;
    return this.#watchers;
  }
}

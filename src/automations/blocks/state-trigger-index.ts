import type { EntityManager } from '@mikro-orm/postgresql';
import { activeStateRows, stateTriggersOf, type StateRow } from '../model/automation.sql.ts';
import type { StateTrigger } from '../model/trigger.schemas.ts';
import { conditionKey, readKey } from './state-trigger-keys.ts';

/** A state trigger as the follower evaluates it: parsed, keyed and hashed once per change of its row. */
interface IndexedStateTrigger {
  version: string;
  trigger: StateTrigger;
  /** PostgreSQL's md5 of the trigger's jsonb text: with its activation, what its mark is for. */
  digest: string;
  readKey: string;
  target: bigint | null;
}

/** An active state trigger with its mark, as of this block. */
export interface StateCandidate {
  row: StateRow;
  indexed: IndexedStateTrigger;
  /** What a mark for this trigger as it stands now is keyed by. */
  key: string;
}

/** Triggers read again in one statement: a few hundred at 4 KiB of arguments each. */
const reloadPage = 500;

/**
 * The active state triggers of one network (by name), held in the worker's memory: each block
 * reads every active row's mark and version (a few dozen bytes), and the trigger itself only when
 * its row changed, so that the cost of a block does not grow with the size of what tenants wrote
 * into their triggers, nor with other networks' triggers.
 */
export class StateTriggerIndex {
  readonly #network: string;
  #triggers = new Map<string, IndexedStateTrigger>();

  constructor(network: string) {
    this.#network = network;
  }

  async current(em: EntityManager): Promise<StateCandidate[]> {
    const rows = await activeStateRows(em, this.#network);
    const stale = rows.filter((row) => this.#triggers.get(row.id)?.version !== row.version).map((row) => row.id);
    for (let start = 0; start < stale.length; start += reloadPage) {
      for (const stored of await stateTriggersOf(em, stale.slice(start, start + reloadPage))) {
        this.#triggers.set(stored.id, {
          version: stored.version,
          trigger: stored.trigger,
          digest: stored.digest,
          readKey: readKey(stored.trigger),
          target: stored.trigger.value === undefined ? null : BigInt(stored.trigger.value),
        });
      }
    }
    const active = new Set(rows.map((row) => row.id));
    for (const id of this.#triggers.keys()) if (!active.has(id)) this.#triggers.delete(id);
    const candidates: StateCandidate[] = [];
    for (const row of rows) {
      const indexed = this.#triggers.get(row.id);
      // Changed to another kind between the two statements: not a state trigger any more.
      if (!indexed || indexed.version !== row.version) continue;
      candidates.push({ row, indexed, key: conditionKey(indexed.digest, row.watch_from_block) });
    }
    return candidates;
  }
}

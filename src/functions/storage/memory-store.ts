import { refusalOf, type Refusal } from './commit-rules.ts';
import type { StorageChanges, StorageReader } from './run-storage.ts';
import { byKeyOrder } from './storage-limits.ts';

interface MemoryEntry {
  value: unknown;
  version: number;
  json: string;
}

/**
 * A function's store held in memory, committed by the same rules as PostgreSQL's: the store of
 * `neoflow fn run --storage`, seeded from a file's values (each at version 1).
 */
export class MemoryStore {
  readonly #entries = new Map<string, MemoryEntry>();

  constructor(values: Record<string, unknown> = {}) {
    for (const [key, value] of Object.entries(values)) {
      this.#entries.set(key, { value, version: 1, json: JSON.stringify(value) });
    }
  }

  reader(): StorageReader {
    return {
      read: (key) => {
        const entry = this.#entries.get(key);
        return Promise.resolve(entry && { value: JSON.parse(entry.json) as unknown, version: entry.version });
      },
      keys: (prefix, after, limit) => {
        const keys = [...this.#entries.keys()]
          .filter((key) => key.startsWith(prefix) && (after === undefined || byKeyOrder(key, after) > 0))
          .sort(byKeyOrder);
        return Promise.resolve(keys.slice(0, limit));
      },
    };
  }

  /** Applies a run's writes, or none of them: the refusal a run would fail with. */
  commit(changes: StorageChanges): Refusal | undefined {
    const held = new Map(
      [...this.#entries].map(([key, entry]) => [key, { version: entry.version, size: Buffer.byteLength(entry.json) }]),
    );
    const bytes = [...held.values()].reduce((sum, entry) => sum + entry.size, 0);
    const refusal = refusalOf(changes, held, { keys: held.size, bytes });
    if (refusal) return refusal;
    for (const set of changes.sets) {
      const version = (this.#entries.get(set.key)?.version ?? 0) + 1;
      this.#entries.set(set.key, { value: set.value, version, json: set.json });
    }
    for (const key of changes.deletes) this.#entries.delete(key);
    return undefined;
  }

  /** Every value, in key order. */
  values(): Record<string, unknown> {
    const keys = [...this.#entries.keys()].sort(byKeyOrder);
    return Object.fromEntries(keys.map((key) => [key, this.#entries.get(key)!.value]));
  }
}

import { storable } from '../../db/storable.ts';
import { ServiceError } from '../../sandbox/service-error.ts';
import type { SandboxStorage } from '../../sandbox/types.ts';
import { byKeyOrder, keyProblem, storageKey, storageLimits } from './storage-limits.ts';
import { executionErrorName } from '../../shared/outcomes.ts';

/** A stored value and its version (1 for the first write, one more for each after). */
export interface StoredEntry {
  value: unknown;
  version: number;
}

/** Where a run reads the store as committed: PostgreSQL (storage-store.ts) or a file (fn run). */
export interface StorageReader {
  read(key: string): Promise<StoredEntry | undefined>;
  /** Keys starting with `prefix` after `after`, in byte order, at most `limit`. */
  keys(prefix: string, after: string | undefined, limit: number): Promise<string[]>;
}

/** A value a run sets: its JSON text is what is sealed and counted. */
export interface PendingSet {
  key: string;
  value: unknown;
  json: string;
  bytes: number;
}

/** What a run asks to commit with its end. */
export interface StorageChanges {
  sets: PendingSet[];
  deletes: string[];
  /** The version each key given `ifVersion` must still have when the run commits (0: absent). */
  conditions: Map<string, number>;
}

/** What an execution records of its run's storage: keys only, never values. */
interface StorageKeys {
  read: string[];
  written: string[];
}

/**
 * `context.storage` of one run: reads go to the store as committed, writes wait in this buffer,
 * which every later read of the run sees, until the run's end commits them all or none
 * (storage-commit.ts). Versions are the committed ones: a run's own writes do not move them, so
 * an `ifVersion` the run read stays the one its commit is checked against.
 */
export class RunStorage implements SandboxStorage {
  readonly #reader: StorageReader;
  readonly #read = new Set<string>();
  /** A value to set, or null for a delete. */
  readonly #pending = new Map<string, PendingSet | null>();
  readonly #conditions = new Map<string, number>();
  readonly #committedVersions = new Map<string, number>();
  #pendingBytes = 0;

  constructor(reader: StorageReader) {
    this.#reader = reader;
  }

  async get(key: unknown): Promise<unknown> {
    return (await this.getEntry(key)).value;
  }

  /** `{value, version}`; version 0 and no value for a key the store does not hold. */
  async getEntry(key: unknown): Promise<{ value?: unknown; version: number }> {
    const name = storageKey(key);
    this.#read.add(name);
    const pending = this.#pending.get(name);
    const known = this.#committedVersions.get(name);
    if (pending !== undefined && known !== undefined) return entry(pending?.value, known);
    const stored = await this.#reader.read(name);
    const version = stored?.version ?? 0;
    this.#committedVersions.set(name, version);
    const now = this.#pending.get(name);
    return now === undefined ? entry(stored?.value, version) : entry(now?.value, version);
  }

  set(key: unknown, value: unknown, options: unknown): Promise<void> {
    const name = storageKey(key);
    const json = JSON.stringify(storable(value));
    const bytes = Buffer.byteLength(json);
    if (bytes > storageLimits.valueBytes) {
      throw new ServiceError(
        executionErrorName.StorageValueError,
        `The value of ${name} is ${bytes} bytes as JSON; a value is at most ${storageLimits.valueBytes}.`,
      );
    }
    this.#condition(name, options);
    this.#buffer(name, { key: name, value: JSON.parse(json) as unknown, json, bytes });
    return Promise.resolve();
  }

  delete(key: unknown, options: unknown): Promise<void> {
    const name = storageKey(key);
    this.#condition(name, options);
    this.#buffer(name, null);
    return Promise.resolve();
  }

  /** Keys only, in byte order, `cursor` being the last key of the page before. */
  async list(options: unknown): Promise<{ keys: string[]; cursor?: string }> {
    const { prefix, limit, cursor } = listOptions(options);
    const deletes = [...this.#pending.values()].filter((pending) => pending === null).length;
    // As many more as the run deleted: the page is full even if each of those is among them.
    const stored = await this.#reader.keys(prefix, cursor, limit + 1 + deletes);
    const merged = new Set(stored);
    for (const [name, pending] of this.#pending) {
      const inRange = name.startsWith(prefix) && (cursor === undefined || byKeyOrder(name, cursor) > 0);
      if (pending === null) merged.delete(name);
      else if (inRange) merged.add(name);
    }
    const keys = [...merged].sort(byKeyOrder);
    const page = keys.slice(0, limit);
    return keys.length > limit ? { keys: page, cursor: page.at(-1)! } : { keys: page };
  }

  /** The writes to commit; undefined for a run that wrote nothing. */
  changes(): StorageChanges | undefined {
    if (this.#pending.size === 0) return undefined;
    const pending = [...this.#pending.entries()];
    return {
      sets: pending.flatMap(([, set]) => (set ? [set] : [])),
      deletes: pending.filter(([, set]) => set === null).map(([name]) => name),
      conditions: new Map(this.#conditions),
    };
  }

  /** What the execution records; undefined for a run that never touched its store's values. */
  keys(): StorageKeys | undefined {
    if (this.#read.size === 0 && this.#pending.size === 0) return undefined;
    return { read: [...this.#read].sort(byKeyOrder), written: [...this.#pending.keys()].sort(byKeyOrder) };
  }

  #condition(name: string, options: unknown) {
    const ifVersion = versionOption(options);
    if (ifVersion === undefined) return;
    const earlier = this.#conditions.get(name);
    if (earlier !== undefined && earlier !== ifVersion) {
      throw new ServiceError(
        executionErrorName.StorageConflict,
        `${name} was already written with ifVersion ${earlier}; it cannot also be at version ${ifVersion}.`,
      );
    }
    this.#conditions.set(name, ifVersion);
  }

  /** The buffer is bounded by the function's quotas: a run can never commit more than they allow. */
  #buffer(name: string, next: PendingSet | null) {
    const previousBytes = this.#pending.get(name)?.bytes ?? 0;
    const bytes = this.#pendingBytes - previousBytes + (next?.bytes ?? 0);
    if (!this.#pending.has(name) && this.#pending.size >= storageLimits.keys) {
      throw new ServiceError(executionErrorName.StorageQuotaError, `A run writes at most ${storageLimits.keys} keys.`);
    }
    if (bytes > storageLimits.bytes) {
      throw new ServiceError(
        executionErrorName.StorageQuotaError,
        `A run writes at most ${storageLimits.bytes} bytes of values.`,
      );
    }
    this.#pending.set(name, next);
    this.#pendingBytes = bytes;
  }
}

const entry = (value: unknown, version: number) => (value === undefined ? { version } : { value, version });

function plainOptions(options: unknown, call: string): Record<string, unknown> {
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw new ServiceError(executionErrorName.StorageError, `The options of storage.${call} must be an object.`);
  }
  return options as Record<string, unknown>;
}

function versionOption(options: unknown): number | undefined {
  const { ifVersion } = plainOptions(options, 'set and storage.delete');
  if (ifVersion === undefined) return undefined;
  if (!Number.isSafeInteger(ifVersion) || (ifVersion as number) < 0) {
    throw new ServiceError(
      executionErrorName.StorageError,
      'ifVersion must be an integer of 0 or more (0: the key must not exist).',
    );
  }
  return ifVersion as number;
}

function listOptions(options: unknown): { prefix: string; limit: number; cursor: string | undefined } {
  const { prefix = '', limit = storageLimits.listDefault, cursor } = plainOptions(options, 'list');
  if (typeof prefix !== 'string' || prefix.length > storageLimits.keyChars) {
    throw new ServiceError(
      executionErrorName.StorageError,
      `list's prefix must be a string of at most ${storageLimits.keyChars} characters.`,
    );
  }
  // A prefix is compared in SQL as keys are stored: the same characters refused.
  if (prefix !== '' && keyProblem(prefix)) {
    throw new ServiceError(
      executionErrorName.StorageError,
      "list's prefix must not hold control characters or lone surrogates.",
    );
  }
  if (!Number.isSafeInteger(limit) || (limit as number) < 1 || (limit as number) > storageLimits.listLimit) {
    throw new ServiceError(
      executionErrorName.StorageError,
      `list's limit must be an integer from 1 to ${storageLimits.listLimit}.`,
    );
  }
  return { prefix, limit: limit as number, cursor: cursor === undefined ? undefined : storageKey(cursor) };
}

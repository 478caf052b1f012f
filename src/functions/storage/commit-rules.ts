import type { StorageChanges } from './run-storage.ts';
import { storageLimits } from './storage-limits.ts';
import { executionErrorName } from '../../shared/outcomes.ts';

/** A key as the store holds it when a commit checks its writes. */
export interface HeldKey {
  version: number;
  size: number;
}

/** Why a run's writes were not committed: the run fails with this error, its writes dropped. */
export interface Refusal {
  name: typeof executionErrorName.StorageConflict | typeof executionErrorName.StorageQuotaError;
  message: string;
}

/**
 * Checks a run's writes against the store as it is at commit, every key of the writes in
 * `held`: each `ifVersion` must still hold, and the function's quotas after the writes, unless the
 * writes shrink what is over a quota lowered since. `usage`: all the function's keys and bytes.
 */
export function refusalOf(
  changes: StorageChanges,
  held: Map<string, HeldKey>,
  usage: { keys: number; bytes: number },
): Refusal | undefined {
  for (const [key, expected] of changes.conditions) {
    const version = held.get(key)?.version ?? 0;
    if (version !== expected) {
      const now = version === 0 ? 'does not exist' : `is at version ${version}`;
      return {
        name: executionErrorName.StorageConflict,
        message: `${key} ${now}, not ${expected} (ifVersion); nothing was written.`,
      };
    }
  }
  let { keys, bytes } = usage;
  for (const set of changes.sets) {
    const before = held.get(set.key);
    keys += before ? 0 : 1;
    bytes += set.bytes - (before?.size ?? 0);
  }
  for (const key of changes.deletes) {
    const before = held.get(key);
    keys -= before ? 1 : 0;
    bytes -= before?.size ?? 0;
  }
  if (keys > storageLimits.keys && keys > usage.keys) {
    return quota(`would hold ${keys} keys; a function keeps at most ${storageLimits.keys}`);
  }
  if (bytes > storageLimits.bytes && bytes > usage.bytes) {
    return quota(`would hold ${bytes} bytes of values; a function keeps at most ${storageLimits.bytes}`);
  }
  return undefined;
}

const quota = (what: string): Refusal => ({
  name: executionErrorName.StorageQuotaError,
  message: `The function's storage ${what}; nothing was written.`,
});

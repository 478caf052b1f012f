import type { EntityManager } from '@mikro-orm/postgresql';
import { open, seal, type MasterKeys, type Sealed } from '../../crypto/envelope.ts';
import { sealContexts } from '../../crypto/seal-contexts.ts';
import { refusalOf, type HeldKey, type Refusal } from './commit-rules.ts';
import type { PendingSet, StorageChanges, StorageReader, StoredEntry } from './run-storage.ts';
import { deleteKeys, heldRows, keysAfter, storedRow, upsertValues, usageOf, type SealedRow } from './storage.sql.ts';

function opened(functionId: string, key: string, row: SealedRow, masters: MasterKeys): StoredEntry {
  const sealed = { ciphertext: row.ciphertext, wrappedKey: row.wrapped_key, masterKeyId: row.master_key_id };
  return {
    value: JSON.parse(open(sealed, sealContexts.functionStorage(functionId, key), masters)) as unknown,
    version: row.version,
  };
}

/** One stored value, opened; undefined for a key the function's store does not hold. */
export async function readValue(
  em: EntityManager,
  masters: MasterKeys,
  functionId: string,
  key: string,
): Promise<(StoredEntry & { size: number; updatedAt: string }) | undefined> {
  const row = await storedRow(em, functionId, key);
  return row && { ...opened(functionId, key, row, masters), size: row.size, updatedAt: row.updated_at };
}

/** The store as committed, read by a run of the function (run-storage.ts). */
export function storeReader(em: EntityManager, masters: MasterKeys, functionId: string): StorageReader {
  return {
    read: (key) => readValue(em, masters, functionId, key),
    keys: (prefix, after, limit) => keysAfter(em, functionId, prefix, after ?? '', limit),
  };
}

/** A set's value sealed before its transaction begins: the locks are held for the statements only. */
interface SealedSet {
  set: PendingSet;
  sealed: Sealed;
}

export const sealSets = (masters: MasterKeys, functionId: string, sets: PendingSet[]): SealedSet[] =>
  sets.map((set) => ({ set, sealed: seal(set.json, sealContexts.functionStorage(functionId, set.key), masters) }));

/**
 * Applies writes to a function's store inside the caller's transaction `tx`, which holds
 * `lockStore`: the checks (each `ifVersion`, the quotas) and the writes of one commit never
 * interleave with another's. Answers the refusal, having written nothing, or the version each set
 * key now has.
 */
export async function applyChanges(
  tx: EntityManager,
  functionId: string,
  changes: StorageChanges,
  sealed: SealedSet[],
): Promise<Refusal | Map<string, number>> {
  const keys = [...sealed.map(({ set }) => set.key), ...changes.deletes];
  const held = await heldKeys(tx, functionId, keys);
  const refusal = refusalOf(changes, held, await usageOf(tx, functionId));
  if (refusal) return refusal;
  const versions = new Map<string, number>();
  if (sealed.length > 0) {
    const rows = await upsertValues(
      tx,
      functionId,
      sealed.map(({ set, sealed: value }) => ({ key: set.key, bytes: set.bytes, sealed: value })),
    );
    for (const row of rows) versions.set(row.key, row.version);
  }
  if (changes.deletes.length > 0) {
    await deleteKeys(tx, functionId, changes.deletes);
  }
  return versions;
}

async function heldKeys(tx: EntityManager, functionId: string, keys: string[]): Promise<Map<string, HeldKey>> {
  const rows = await heldRows(tx, functionId, keys);
  return new Map(rows.map((row) => [row.key, { version: row.version, size: row.size }]));
}

import type { EntityManager } from '@mikro-orm/postgresql';
import { executeBound } from '../../db/bound-statement.ts';
import { open, seal, type MasterKeys, type Sealed } from '../../crypto/envelope.ts';
import { sealContexts } from '../../crypto/seal-contexts.ts';
import { refusalOf, type HeldKey, type Refusal } from './commit-rules.ts';
import type { PendingSet, StorageChanges, StorageReader, StoredEntry } from './run-storage.ts';

/** Authenticated with each value: a ciphertext moved to another function or key no longer opens. */

interface SealedRow {
  version: number;
  ciphertext: Buffer;
  wrapped_key: Buffer;
  master_key_id: string;
}

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
  const [row] = await em.execute<(SealedRow & { size: number; updated_at: string })[]>(
    `select "version", "size", "updated_at", "ciphertext", "wrapped_key", "master_key_id" from "function_storage"
      where "function_id" = ? and "key" = ?`,
    [functionId, key],
  );
  return row && { ...opened(functionId, key, row, masters), size: row.size, updatedAt: row.updated_at };
}

/** The store as committed, read by a run of the function (run-storage.ts). */
export function storeReader(em: EntityManager, masters: MasterKeys, functionId: string): StorageReader {
  return {
    read: (key) => readValue(em, masters, functionId, key),
    keys: async (prefix, after, limit) => {
      const rows = await em.execute<{ key: string }[]>(
        `select "key" from "function_storage"
          where "function_id" = ? and "key" >= ? and starts_with("key", ?) and "key" > ?
          order by "key" limit ?`,
        [functionId, prefix, prefix, after ?? '', limit],
      );
      return rows.map((row) => row.key);
    },
  };
}

/** A set's value sealed before its transaction begins: the locks are held for the statements only. */
export interface SealedSet {
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
  const refusal = refusalOf(changes, held, await usage(tx, functionId));
  if (refusal) return refusal;
  const versions = new Map<string, number>();
  if (sealed.length > 0) {
    // Bound, not escaped into the text: up to 4 MiB of sealed values (db/bound-statement.ts).
    const { rows } = await executeBound<{ key: string; version: number }>(
      tx,
      `insert into "function_storage"
        ("function_id", "key", "version", "size", "ciphertext", "wrapped_key", "master_key_id", "updated_at")
      values ${sealed.map(() => '(?, ?, 1, ?, ?, ?, ?, now())').join(', ')}
      on conflict ("function_id", "key") do update set "version" = "function_storage"."version" + 1,
        "size" = excluded."size", "ciphertext" = excluded."ciphertext", "wrapped_key" = excluded."wrapped_key",
        "master_key_id" = excluded."master_key_id", "updated_at" = excluded."updated_at"
      returning "key", "version"`,
      sealed.flatMap(({ set, sealed: value }) => [
        functionId,
        set.key,
        set.bytes,
        Buffer.from(value.ciphertext),
        Buffer.from(value.wrappedKey),
        value.masterKeyId,
      ]),
    );
    for (const row of rows) versions.set(row.key, row.version);
  }
  if (changes.deletes.length > 0) {
    await executeBound(
      tx,
      `delete from "function_storage" where "function_id" = ? and "key" in (${changes.deletes.map(() => '?').join(', ')})`,
      [functionId, ...changes.deletes],
    );
  }
  return versions;
}

/**
 * The per-function lock of commits, taken first in their transaction (FOR NO KEY UPDATE: invokes
 * inserting executions, which only share the key, never wait on it; an update or delete of the
 * function does, for one commit).
 */
export async function lockStore(tx: EntityManager, functionId: string) {
  await tx.execute(`select 1 from "functions" where "id" = ? for no key update`, [functionId]);
}

async function heldKeys(tx: EntityManager, functionId: string, keys: string[]): Promise<Map<string, HeldKey>> {
  const rows = await tx.execute<{ key: string; version: number; size: number }[]>(
    `select "key", "version", "size" from "function_storage"
      where "function_id" = ? and "key" in (${keys.map(() => '?').join(', ')})`,
    [functionId, ...keys],
  );
  return new Map(rows.map((row) => [row.key, { version: row.version, size: row.size }]));
}

async function usage(tx: EntityManager, functionId: string) {
  const [row] = await tx.execute<{ keys: number; bytes: string }[]>(
    `select count(*)::int as "keys", coalesce(sum("size"), 0)::bigint as "bytes" from "function_storage"
      where "function_id" = ?`,
    [functionId],
  );
  return { keys: row!.keys, bytes: Number(row!.bytes) };
}

import type { EntityManager } from '@mikro-orm/postgresql';
import { executeBound } from '../../db/bound-statement.ts';
import type { Sealed } from '../../crypto/envelope.ts';

/** The statements of the `function_storage` table: a function's sealed key-value store. */

/** A stored value as its row holds it, sealed. */
export interface SealedRow {
  version: number;
  ciphertext: Buffer;
  wrapped_key: Buffer;
  master_key_id: string;
}

/** A key as a listing shows it, without its value. */
export interface ItemRow {
  key: string;
  version: number;
  size: number;
  /** As the driver reads a timestamptz in a plain statement: text. */
  updated_at: string;
}

export async function storedRow(em: EntityManager, functionId: string, key: string) {
  const [row] = await em.execute<(SealedRow & { size: number; updated_at: string })[]>(
    `select "version", "size", "updated_at", "ciphertext", "wrapped_key", "master_key_id" from "function_storage"
      where "function_id" = ? and "key" = ?`,
    [functionId, key],
  );
  return row;
}

/** Up to `limit` keys starting with `prefix` after `after`, in byte order. */
export async function keysAfter(em: EntityManager, functionId: string, prefix: string, after: string, limit: number) {
  const rows = await em.execute<{ key: string }[]>(
    `select "key" from "function_storage"
      where "function_id" = ? and "key" >= ? and starts_with("key", ?) and "key" > ?
      order by "key" limit ?`,
    [functionId, prefix, prefix, after, limit],
  );
  return rows.map((row) => row.key);
}

/** Writes each value (a new key at version 1, a held one a version up); answers each key's version. */
export async function upsertValues(
  tx: EntityManager,
  functionId: string,
  values: { key: string; bytes: number; sealed: Sealed }[],
) {
  // Bound, not escaped into the text: up to 4 MiB of sealed values (db/bound-statement.ts).
  const { rows } = await executeBound<{ key: string; version: number }>(
    tx,
    `insert into "function_storage"
        ("function_id", "key", "version", "size", "ciphertext", "wrapped_key", "master_key_id", "updated_at")
      values ${values.map(() => '(?, ?, 1, ?, ?, ?, ?, now())').join(', ')}
      on conflict ("function_id", "key") do update set "version" = "function_storage"."version" + 1,
        "size" = excluded."size", "ciphertext" = excluded."ciphertext", "wrapped_key" = excluded."wrapped_key",
        "master_key_id" = excluded."master_key_id", "updated_at" = excluded."updated_at"
      returning "key", "version"`,
    values.flatMap(({ key, bytes, sealed }) => [
      functionId,
      key,
      bytes,
      Buffer.from(sealed.ciphertext),
      Buffer.from(sealed.wrappedKey),
      sealed.masterKeyId,
    ]),
  );
  return rows;
}

export async function deleteKeys(tx: EntityManager, functionId: string, keys: string[]) {
  await executeBound(
    tx,
    `delete from "function_storage" where "function_id" = ? and "key" in (${keys.map(() => '?').join(', ')})`,
    [functionId, ...keys],
  );
}

/** The version and size of each of `keys` the store holds. */
export async function heldRows(tx: EntityManager, functionId: string, keys: string[]) {
  return tx.execute<{ key: string; version: number; size: number }[]>(
    `select "key", "version", "size" from "function_storage"
      where "function_id" = ? and "key" in (${keys.map(() => '?').join(', ')})`,
    [functionId, ...keys],
  );
}

/** How many keys the store holds, and their bytes. */
export async function usageOf(tx: EntityManager, functionId: string) {
  const [row] = await tx.execute<{ keys: number; bytes: string }[]>(
    `select count(*)::int as "keys", coalesce(sum("size"), 0)::bigint as "bytes" from "function_storage"
      where "function_id" = ?`,
    [functionId],
  );
  return { keys: row!.keys, bytes: Number(row!.bytes) };
}

const listWhere = `where "function_id" = ? and "key" >= ? and starts_with("key", ?)`;

/** A page of the keys starting with `prefix`, and how many there are. */
export async function itemsPage(em: EntityManager, functionId: string, prefix: string, limit: number, offset: number) {
  const params = [functionId, prefix, prefix];
  const rows = await em.execute<ItemRow[]>(
    `select "key", "version", "size", "updated_at" from "function_storage" ${listWhere}
      order by "key" limit ? offset ?`,
    [...params, limit, offset],
  );
  const [count] = await em.execute<{ total: number }[]>(
    `select count(*)::int as "total" from "function_storage" ${listWhere}`,
    params,
  );
  return { rows, total: count!.total };
}

/** The version of `key`, if the store holds it. */
export async function heldVersion(tx: EntityManager, functionId: string, key: string) {
  const [held] = await tx.execute<{ version: number }[]>(
    `select "version" from "function_storage" where "function_id" = ? and "key" = ?`,
    [functionId, key],
  );
  return held?.version;
}

import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError } from '../../errors.ts';
import type { MasterKeys } from '../../crypto/envelope.ts';
import type { Refusal } from './commit-rules.ts';
import { lockStore } from '../function.sql.ts';
import { applyChanges, readValue, sealSets } from './storage-store.ts';
import { heldVersion, itemsPage, type ItemRow } from './storage.sql.ts';
import type { ListStorage } from './storage.schemas.ts';
import { executionErrorName } from '../../shared/outcomes.ts';

const keyNotFound = (key: string) => new AppError('storage_key_not_found', `The function's storage has no key ${key}.`);

const itemOf = (row: ItemRow) => ({
  key: row.key,
  version: row.version,
  size: row.size,
  updatedAt: new Date(row.updated_at).toISOString(),
});

/** A page of the function's keys in byte order, without their values. */
export async function listStorage(em: EntityManager, functionId: string, query: ListStorage) {
  const { rows, total } = await itemsPage(em, functionId, query.prefix, query.limit, query.offset);
  return { items: rows.map(itemOf), total };
}

export async function getStorageValue(em: EntityManager, masters: MasterKeys, functionId: string, key: string) {
  const stored = await readValue(em, masters, functionId, key);
  if (!stored) throw keyNotFound(key);
  return {
    key,
    version: stored.version,
    size: stored.size,
    updatedAt: new Date(stored.updatedAt).toISOString(),
    value: stored.value,
  };
}

/**
 * Sets a key as an operator or client, under the same lock, checks and quotas as a run's commit:
 * answers the key's new version and size.
 */
export async function putStorageValue(
  em: EntityManager,
  masters: MasterKeys,
  functionId: string,
  key: string,
  input: { value: unknown; ifVersion?: number },
) {
  const json = JSON.stringify(input.value);
  const set = { key, value: input.value, json, bytes: Buffer.byteLength(json) };
  const changes = { sets: [set], deletes: [], conditions: conditionOf(key, input.ifVersion) };
  const sealed = sealSets(masters, functionId, [set]);
  const versions = await em.fork().transactional(async (tx) => {
    await lockStore(tx, functionId);
    return refused(await applyChanges(tx, functionId, changes, sealed));
  });
  return { key, version: versions.get(key)!, size: set.bytes };
}

/** Deletes a key; 404 when the store did not hold it. */
export async function deleteStorageValue(em: EntityManager, functionId: string, key: string, ifVersion?: number) {
  await em.fork().transactional(async (tx) => {
    await lockStore(tx, functionId);
    const held = await heldVersion(tx, functionId, key);
    if (held === undefined && ifVersion === undefined) throw keyNotFound(key);
    const changes = { sets: [], deletes: [key], conditions: conditionOf(key, ifVersion) };
    refused(await applyChanges(tx, functionId, changes, []));
  });
}

const conditionOf = (key: string, ifVersion: number | undefined) =>
  new Map(ifVersion === undefined ? [] : [[key, ifVersion]]);

/** A refused write answers 409: `conflict` for an `ifVersion` that no longer holds, or the quota's code. */
function refused(applied: Refusal | Map<string, number>): Map<string, number> {
  if (applied instanceof Map) return applied;
  throw new AppError(
    applied.name === executionErrorName.StorageConflict ? 'conflict' : 'storage_quota_exceeded',
    applied.message,
  );
}

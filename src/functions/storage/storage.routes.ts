import type { Router } from '@koa/router';
import { z } from 'zod';
import { dataEnvelope, dataPageEnvelope } from '../../wire/response-schemas.ts';
import { areaRouter, data, dataPage, route } from '../../api/route-kit.ts';
import { invalidRequest } from '../../errors.ts';
import type { Resources } from '../../resources.ts';
import { getFunction } from '../functions.service.ts';
import {
  deleteStorageQuery,
  listStorageQuery,
  putStorageBody,
  storageEntrySchema,
  storageItemSchema,
} from './storage.schemas.ts';
import { keyProblem } from './storage-limits.ts';
import { deleteStorageValue, getStorageValue, listStorage, putStorageValue } from './storage.service.ts';

/**
 * A function's key-value store as operators and clients see it (the functions area's envelope):
 * what its runs read and write through `context.storage`. A key in the path is percent-encoded.
 */
export function storageRoutes(resources: Resources): Router {
  const { em, masterKeys } = resources;
  /** The function, the caller's, and the key checked as a run checks it. */
  const target = async (accountId: string, params: { id: string; key: string }) => {
    const fn = await getFunction(em(), accountId, params.id);
    const problem = keyProblem(params.key);
    if (problem) throw invalidRequest(`The key in the path: ${problem}.`, 'key');
    return { functionId: fn.id, key: params.key };
  };
  return areaRouter('/v1/functions', [
    route({
      method: 'get',
      path: '/:id/storage',
      errors: ['function_not_found'],
      summary: 'List stored keys',
      description:
        "Returns the function's keys in byte order, each with its version, size and last update, without its value; `prefix` narrows them. `limit` defaults to 100.",
      tag: 'Storage',
      scope: 'functions:read',
      query: listStorageQuery,
      responses: { 200: dataPageEnvelope(storageItemSchema, 'StorageItemPage') },
      handle: async ({ accountId, params, query }) => {
        const fn = await getFunction(em(), accountId, params.id);
        const { items, total } = await listStorage(em(), fn.id, query);
        return dataPage(items, query, total);
      },
    }),
    route({
      method: 'get',
      path: '/:id/storage/:key',
      errors: ['function_not_found', 'storage_key_not_found'],
      summary: 'Retrieve a stored value',
      description:
        "Returns the key's value as stored, with its version and size; 404 `storage_key_not_found` for a key not stored.",
      tag: 'Storage',
      scope: 'functions:read',
      responses: { 200: dataEnvelope(storageEntrySchema) },
      handle: async ({ accountId, params }) => {
        const { functionId, key } = await target(accountId, params);
        return data(await getStorageValue(em(), masterKeys, functionId, key));
      },
    }),
    route({
      method: 'put',
      path: '/:id/storage/:key',
      errors: ['function_not_found', 'conflict', 'storage_quota_exceeded'],
      summary: 'Store a value',
      description:
        "Writes any JSON value (at most 64 KiB) under the key and answers its new version. With `ifVersion`, only while the key is at that version (0: it must not exist), else 409 `conflict`. Over the function's quotas (1,000 keys, 4 MiB): 409 `storage_quota_exceeded`, nothing written.",
      tag: 'Storage',
      scope: 'functions:write',
      body: putStorageBody,
      responses: { 200: dataEnvelope(storageItemSchema.omit({ updatedAt: true })) },
      handle: async ({ accountId, params, body }) => {
        const { functionId, key } = await target(accountId, params);
        return data(await putStorageValue(em(), masterKeys, functionId, key, body));
      },
    }),
    route({
      method: 'delete',
      path: '/:id/storage/:key',
      errors: ['function_not_found', 'storage_key_not_found', 'conflict'],
      summary: 'Delete a stored value',
      description:
        'Deletes the key; with `ifVersion`, only while it is at that version (409 `conflict` otherwise). 404 `storage_key_not_found` for a key not stored.',
      tag: 'Storage',
      scope: 'functions:write',
      query: deleteStorageQuery,
      responses: { 200: dataEnvelope(z.strictObject({ key: z.string(), deleted: z.literal(true) })) },
      handle: async ({ accountId, params, query }) => {
        const { functionId, key } = await target(accountId, params);
        await deleteStorageValue(em(), functionId, key, query.ifVersion);
        return data({ key, deleted: true });
      },
    }),
  ]);
}

import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { StorableJson } from '../db/storable.ts';
import { Account } from '../auth/account.entity.ts';
import { prefixedId } from '../db/resource-properties.ts';
import { FunctionDef } from './function.entity.ts';
import type { HttpRequestRecord } from './function-fetch.ts';
import type { ExecutionStatus } from '../shared/outcomes.ts';

/** One invocation of a function: the queryable history; Temporal owns the running state. */
export const Execution = defineEntity({
  name: 'Execution',
  tableName: 'executions',
  properties: {
    id: prefixedId('exec'),
    function: () => p.manyToOne(FunctionDef).deleteRule('cascade'),
    account: () => p.manyToOne(Account).deleteRule('cascade'),
    status: p.string().length(16).$type<ExecutionStatus>(),
    params: p.type(StorableJson).$type<Record<string, unknown>>(),
    error: p.type(StorableJson).$type<{ name: string; message: string; stack: string }>().nullable(),
    logs: p.type(StorableJson).$type<{ level: string; message: string; timestamp: string }[]>(),
    trigger: p.type(StorableJson).$type<Record<string, unknown>>(),
    /** The granted secrets the code actually read, with the version it got. */
    secretsRead: p.type(StorableJson).$type<{ name: string; version: number }[]>(),
    /** The run's `fetch` requests: method, host, status, bytes, duration (function-fetch.ts). */
    httpRequests: p.type(StorableJson).$type<HttpRequestRecord[]>(),
    /** The function's version it runs (null: recorded before versions were kept). */
    functionVersion: p.integer().nullable(),
    /** The storage keys the run read and wrote (its writes applied only when it completed). */
    storageKeys: p.type(StorableJson).$type<{ read: string[]; written: string[] }>().nullable(),
    startedAt: p.datetime(),
    completedAt: p.datetime().nullable(),
    duration: p.integer().nullable(),
  },
});

export type Execution = InferEntity<typeof Execution>;

/**
 * A completed execution's result, sealed like a secret (envelope.ts): a function may return what
 * it read from a secret, and PostgreSQL must never hold a secret value in clear.
 */
export const ExecutionResult = defineEntity({
  name: 'ExecutionResult',
  tableName: 'execution_results',
  properties: {
    execution: () => p.oneToOne(Execution).primary().owner().deleteRule('cascade'),
    ciphertext: p.blob(),
    wrappedKey: p.blob(),
    masterKeyId: p.string().length(16),
  },
});

export type ExecutionResult = InferEntity<typeof ExecutionResult>;

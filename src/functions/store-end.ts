import type { EntityManager } from '@mikro-orm/postgresql';
import { executeBound } from '../db/bound-statement.ts';
import { jsonbParam } from '../db/jsonb-param.ts';
import type { Sealed } from '../crypto/envelope.ts';
import type { Execution } from './execution.entity.ts';

/** How an execution ended, as its row stores it; `httpRequests` stays as it is when not given (a lost run's). */
export type End = Pick<Execution, 'status' | 'secretsRead' | 'logs' | 'error' | 'completedAt' | 'duration'> &
  Partial<Pick<Execution, 'httpRequests' | 'storageKeys'>>;

const storeEndSql = `with "ended" as (
  update "executions" set "status" = ?, "secrets_read" = ?, "logs" = ?, "error" = ?, "completed_at" = ?, "duration" = ?,
    "http_requests" = coalesce(?, "http_requests"), "storage_keys" = ?
  where "id" = ? and "status" = 'running' returning "id")
insert into "execution_results" ("execution_id", "ciphertext", "wrapped_key", "master_key_id")
select "id", ?, ?, ? from "ended"
returning "execution_id"`;

const storeFailureSql = `update "executions" set "status" = ?, "secrets_read" = ?, "logs" = ?, "error" = ?, "completed_at" = ?, "duration" = ?,
    "http_requests" = coalesce(?, "http_requests"), "storage_keys" = ?
  where "id" = ? and "status" = 'running'`;

/**
 * Writes an execution's end, with its sealed result when it completed, in one statement: one
 * round trip and one commit at the end of every run. Only a running execution ends, once: when
 * two processes ran the same execution (one taken over after a workflow task timed out), the
 * first to store wins and the other learns it got there second (false). A run's storage writes
 * commit in the transaction of this statement (storage/storage-commit.ts).
 */
export async function storeEnd(em: EntityManager, executionId: string, end: End, sealed?: Sealed): Promise<boolean> {
  const fields = [
    end.status,
    jsonbParam(end.secretsRead),
    jsonbParam(end.logs),
    jsonbParam(end.error ?? null),
    end.completedAt,
    end.duration,
    end.httpRequests === undefined ? null : jsonbParam(end.httpRequests),
    jsonbParam(end.storageKeys ?? null),
    executionId,
  ];
  if (!sealed) return (await executeBound(em, storeFailureSql, fields)).affectedRows === 1;
  const stored = [Buffer.from(sealed.ciphertext), Buffer.from(sealed.wrappedKey), sealed.masterKeyId];
  return (await executeBound(em, storeEndSql, [...fields, ...stored])).rows.length === 1;
}

import { withAuditEvent } from '../audit/audit-event.sql.ts';
import type { AuditRecord } from '../audit/audit.ts';
import { auditEventsWritten } from '../metrics/metrics.ts';
import type { EntityManager } from '@mikro-orm/postgresql';
import { executeBound } from '../db/bound-statement.ts';
import { entityColumns } from '../db/entity-columns.ts';
import { jsonbParam } from '../db/jsonb-param.ts';
import type { Sealed } from '../crypto/envelope.ts';
import { Execution } from './execution.entity.ts';
import { executionStatus } from '../shared/outcomes.ts';
import { sweepPage } from '../db/sweep-page.ts';
import type { HostCall } from '../receipts/receipt-claims.ts';

/** The statements of the `executions` table (and of its sealed results, written with them). */

/** An execution row's columns, and its values, as its entity names them. */
export const executionColumns = (em: EntityManager) => entityColumns(em, Execution);

/**
 * Stores a row built by `newExecution` in one statement, its params (up to 1 MiB) bound, not
 * escaped, with the audit event of who started it (an invoke, a retry) in the same statement.
 */
export async function insertExecution(em: EntityManager, execution: Execution, event: AuditRecord) {
  const columns = executionColumns(em);
  const audited = withAuditEvent(`insert into "executions" (${columns.names}) values (${columns.placeholders})`, event);
  await executeBound(em, audited.sql, [...audited.values, ...columns.values(execution)]);
  auditEventsWritten.inc({ action: event.action });
}

/** How an execution ended, as its row stores it; `httpRequests` stays as it is when not given (a lost run's). */
export type End = Pick<Execution, 'status' | 'secretsRead' | 'logs' | 'error' | 'completedAt' | 'duration'> &
  Partial<Pick<Execution, 'httpRequests' | 'storageKeys'>>;

const endSql = `update "executions" set "status" = ?, "secrets_read" = ?, "logs" = ?, "error" = ?, "completed_at" = ?, "duration" = ?,
    "http_requests" = coalesce(?, "http_requests"), "storage_keys" = ?
  where "id" = ? and "status" = '${executionStatus.running}'`;

const receiptSql = `insert into "execution_receipts" ("execution_id", "key_id", "preimage", "signature", "host_calls", "evidence")
select "id", ?, ?, ?, ?, ? from "ended"`;

const resultSql = `insert into "execution_results" ("execution_id", "ciphertext", "wrapped_key", "master_key_id")
select "id", ?, ?, ? from "ended"`;

/** The end's statement: the update, then the result and the receipt of the row it ended, if any. */
function storeEndSql(sealed: boolean, receipt: boolean): string {
  if (!sealed && !receipt) return endSql;
  const ended = `with "ended" as (${endSql} returning "id")`;
  if (sealed && receipt) return `${ended}, "receipt" as (${receiptSql})\n${resultSql} returning "execution_id"`;
  return `${ended}\n${sealed ? resultSql : receiptSql} returning "execution_id"`;
}

/** An execution's signed receipt (src/receipts/), as `execution_receipts` stores it. */
export interface StoredReceipt {
  keyId: string;
  preimage: Buffer;
  signature: Buffer;
  hostCalls: HostCall[];
  /** A confidential VM's evidence for the key; null on an ordinary host. */
  evidence: Buffer | null;
}

/**
 * Writes an execution's end, with its sealed result when it completed and its receipt when one was
 * signed, in one statement: one round trip and one commit at the end of every run. Only a running
 * execution ends, once: when two processes ran the same execution (one taken over after a workflow
 * task timed out), the first to store wins and the other learns it got there second (false); its
 * receipt is never stored, so an execution is signed once, by the row. A run's storage writes
 * commit in the transaction of this statement (storage/storage-commit.ts).
 */
export async function storeEnd(
  em: EntityManager,
  executionId: string,
  end: End,
  sealed?: Sealed,
  receipt?: StoredReceipt,
): Promise<boolean> {
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
  const sql = storeEndSql(sealed !== undefined, receipt !== undefined);
  if (!sealed && !receipt) return (await executeBound(em, sql, fields)).affectedRows === 1;
  const signed = receipt
    ? [receipt.keyId, receipt.preimage, receipt.signature, jsonbParam(receipt.hostCalls), receipt.evidence]
    : [];
  const stored = sealed ? [Buffer.from(sealed.ciphertext), Buffer.from(sealed.wrappedKey), sealed.masterKeyId] : [];
  return (await executeBound(em, sql, [...fields, ...signed, ...stored])).rows.length === 1;
}

/** A stored receipt with what its view names beside it: the execution's function and status. */
export type ReadReceipt = StoredReceipt & { functionId: string };

const readReceiptSql = `select r."key_id" as "keyId", r."preimage", r."signature", r."host_calls" as "hostCalls", r."evidence",
  e."function_id" as "functionId"
from "execution_receipts" r join "executions" e on e."id" = r."execution_id" where r."execution_id" = ?`;

/** The receipt of an execution, if it has one. */
export async function readReceipt(em: EntityManager, executionId: string): Promise<ReadReceipt | undefined> {
  const [row] = await em.execute<ReadReceipt[]>(readReceiptSql, [executionId]);
  return row;
}

/**
 * The account's executions recorded and not yet ended, counted up to `limit` (a partial index
 * holds only running rows, so the count reads at most `limit` index entries).
 */
const queuedSql = `select count(*)::int as "queued" from (
  select 1 from "executions" where "account_id" = ? and "status" = '${executionStatus.running}' limit ?) as "running"`;

export async function countQueued(em: EntityManager, accountId: string, limit: number): Promise<number> {
  const [row] = await em.execute<{ queued: number }[]>(queuedSql, [accountId, limit]);
  return row!.queued;
}

/** A function's figures as PostgreSQL counts them (bigint counts come as text). */
interface FunctionStatsRow {
  total: string;
  success: string;
  failed: string;
  last_24_hours: string;
  average_ms: string | null;
  last_invocation: Date | null;
}

/** One pass over the function's executions, from the (function_id, started_at) index alone. */
export const functionStatsSql = `select count(*) as total,
       count(*) filter (where status = '${executionStatus.completed}') as success,
       count(*) filter (where status = '${executionStatus.failed}') as failed,
       count(*) filter (where started_at > now() - interval '24 hours') as last_24_hours,
       round(avg(duration) filter (where status in ('${executionStatus.completed}', '${executionStatus.failed}'))) as average_ms,
       max(started_at) as last_invocation
  from executions where function_id = ?`;

export async function functionStatsRow(em: EntityManager, functionId: string): Promise<FunctionStatsRow> {
  const [row] = await em.getConnection().execute<FunctionStatsRow[]>(functionStatsSql, [functionId]);
  return row!;
}

/** The newest start time of each function's executions. */
export async function lastStarts(em: EntityManager, functionIds: string[]) {
  return em
    .getConnection()
    .execute<{ function_id: string; last: Date }[]>(
      `select function_id, max(started_at) as last from executions where function_id in (?) group by function_id`,
      [functionIds],
    );
}

/**
 * The network of the automation run an execution belongs to (its function action's), by the
 * runs' index of their executions; undefined: none.
 */
export async function networkOfExecutionRun(em: EntityManager, executionId: string): Promise<string | undefined> {
  const [run] = await em.execute<{ network: string }[]>(
    `select "network" from "automation_runs" where "execution_id" = ?`,
    [executionId],
  );
  return run?.network;
}

/** A running execution as the recovery sweep pages through them. */
export interface RunningExecutionRow {
  id: string;
  cursor_at: string;
  account_id: string;
  function_id: string;
  trigger_type: string;
  /** An automation's execution runs in its run's workflow. */
  run_id: string | null;
}

/** Running executions that started before the grace, in the order of their partial index. */
const pageSql = `select e."id", e."started_at"::text as "cursor_at", e."account_id", e."function_id",
  e."trigger"->>'type' as "trigger_type", r."id" as "run_id"
from "executions" e left join "automation_runs" r on r."execution_id" = e."id"
where e."status" = '${executionStatus.running}' and e."started_at" < now() - make_interval(secs => ?)
  and (e."started_at", e."id") > (cast(? as timestamptz), ?)
order by e."started_at", e."id" limit ?`;

/** Up to `limit` of them after the keyset (`at`, `id`). */
export const runningExecutionsPage = sweepPage<RunningExecutionRow>(pageSql);

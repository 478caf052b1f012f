import type { EntityManager } from '@mikro-orm/postgresql';
import { executeBound } from '../../db/bound-statement.ts';
import { jsonbParam } from '../../db/jsonb-param.ts';
import type { ApprovalRequest, ApprovalStatus } from '../model/run.entity.ts';
import { runStatus, type RunStatus } from '../../shared/outcomes.ts';

/**
 * The statements of approvals (migration 0035): a run's request (`automation_runs.approval`) and
 * the `run_approvals` rows, one per key that approved or rejected the run.
 */

export type Decision = 'approve' | 'reject';

const requestSql = `update "automation_runs" set "approval" = ?
where "id" = ? and "status" = '${runStatus.running}' and "tx_raw" is null and "approval" is null`;

/** Stores the run's request unless it holds one already (an earlier attempt's) or has ended or signed: whether it did. */
export async function storeRequest(em: EntityManager, runId: string, request: ApprovalRequest): Promise<boolean> {
  const { affectedRows } = await executeBound(em, requestSql, [jsonbParam(request), runId]);
  return affectedRows > 0;
}

/** What the recording of a decision reads, the run's row locked: nothing else decides it meanwhile. */
interface DecisionTarget {
  status: RunStatus;
  approval: ApprovalRequest | null;
  created_by_key_id: string | null;
  changed_by_key_id: string | null;
}

const lockSql = `select r."status", r."approval", a."created_by_key_id", a."changed_by_key_id"
from "automation_runs" r join "automations" a on a."id" = r."automation_id"
where r."id" = ? and r."automation_id" = ? for update of r`;

export async function lockDecisionTarget(
  tx: EntityManager,
  automationId: string,
  runId: string,
): Promise<DecisionTarget | undefined> {
  const [row] = await tx.execute<DecisionTarget[]>(lockSql, [runId, automationId]);
  return row;
}

/** Records the key's decision: false when the key decided on this run before. */
export async function insertDecision(tx: EntityManager, runId: string, keyId: string, decision: Decision) {
  const rows = await tx.execute<{ run_id: string }[]>(
    `insert into "run_approvals" ("run_id", "key_id", "decision") values (?, ?, ?)
      on conflict ("run_id", "key_id") do nothing returning "run_id"`,
    [runId, keyId, decision],
  );
  return rows.length > 0;
}

/** How many keys approved the run. */
export async function approvalCount(tx: EntityManager, runId: string): Promise<number> {
  const [row] = await tx.execute<{ count: string }[]>(
    `select count(*) as "count" from "run_approvals" where "run_id" = ? and "decision" = 'approve'`,
    [runId],
  );
  return Number(row!.count);
}

const moveSql = `update "automation_runs" set "approval" = jsonb_set("approval", '{status}', to_jsonb(?::text))
where "id" = ? and "status" = '${runStatus.running}' and "approval"->>'status' = 'pending'`;

/** Moves a pending request to `status`; nothing once it is decided or the run ended. */
export async function moveRequest(em: EntityManager, runId: string, status: Exclude<ApprovalStatus, 'pending'>) {
  await em.execute(moveSql, [status, runId]);
}

/** A key's decision on a run, as the run's view shows it. */
export interface DecisionRow {
  run_id: string;
  key_id: string;
  decision: Decision;
  decided_at: Date;
}

/** The decisions on the given runs, oldest first. */
export async function decisionsOf(em: EntityManager, runIds: string[]): Promise<DecisionRow[]> {
  if (runIds.length === 0) return [];
  const { rows } = await executeBound<DecisionRow>(
    em,
    `select "run_id", "key_id", "decision", "decided_at" from "run_approvals"
      where "run_id" = any(?::text[]) order by "decided_at", "key_id"`,
    [runIds],
  );
  return rows;
}

/** Where the run stands: its status, its request's, and whether it holds a transaction. */
export async function approvalState(em: EntityManager, runId: string) {
  const [row] = await em.execute<{ status: RunStatus; approval: ApprovalRequest | null; sent: boolean }[]>(
    `select "status", "approval", "tx_raw" is not null as "sent" from "automation_runs" where "id" = ?`,
    [runId],
  );
  return row ?? null;
}

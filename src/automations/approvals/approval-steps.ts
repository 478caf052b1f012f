import type { EntityManager } from '@mikro-orm/postgresql';
import type { PricedCall } from '../../chain/contract-call.ts';
import { gasText } from '../../chain/gas-amount.ts';
import { approvalOf } from '../model/action.schemas.ts';
import type { AutomationRun, ApprovalRequest } from '../model/run.entity.ts';
import { recordNotifications, rulesFor } from '../notifications/record.ts';
import { notificationsOf } from '../notifications/notification.sql.ts';
import { failUnsent } from '../actions/run-contract.sql.ts';
import { settleReservationsOf } from '../budget/gas-spend.ts';
import { approvalDeadline, needsApproval } from './approval-rules.ts';
import { approvalState, decisionsOf, moveRequest, storeRequest } from './approval.sql.ts';
import { runErrorName, runStatus, type RunStatus } from '../../shared/outcomes.ts';

/** A run waiting for approvals: how long its workflow waits at most, and whom it told. */
export interface AwaitingApproval {
  waitMs: number;
  notifications: string[];
}

/** What a run that waited for approvals does next: sign (approved), wait on, or what it ended as. */
type ApprovalOutcome = RunStatus | 'approved' | { waitMs: number };

const eventKeyOf = (runId: string) => `approval_requested:${runId}`;
const waitLeft = (request: ApprovalRequest) => Math.max(0, new Date(request.deadline).getTime() - Date.now());

/**
 * Whether the run waits for approvals before it signs `priced`, its fee reserved: a run approved
 * signs (this is its re-test, with a fresh validUntilBlock); a run whose action asks for
 * approvals at this fee stores its request and records its `approval_requested` notifications in
 * one transaction, and signs nothing. A request stored by an earlier attempt is kept as it is.
 */
export async function awaitsApproval(em: EntityManager, run: AutomationRun, priced: PricedCall): Promise<boolean> {
  if (run.approval) return run.approval.status !== 'approved';
  const rule = approvalOf(run.automation.action);
  if (!rule || !needsApproval(rule, priced.fee)) return false;
  const requestedAt = new Date();
  const request: ApprovalRequest = {
    status: 'pending',
    required: rule.required,
    fees: { systemFee: String(priced.systemFee), networkFee: String(priced.networkFee) },
    requestedAt: requestedAt.toISOString(),
    deadline: approvalDeadline(rule, requestedAt).toISOString(),
  };
  await em.transactional(async (tx) => {
    if (!(await storeRequest(tx, run.id, request))) return;
    const { automation } = run;
    const approval = { required: rule.required, fee: gasText(priced.fee), deadline: request.deadline };
    const cause = { event: 'approval_requested' as const, run, approval };
    await recordNotifications(tx, automation, rulesFor(automation, 'approval_requested'), eventKeyOf(run.id), cause);
  });
  return true;
}

/** The run's wait when it holds a pending request: how long is left, and its notifications. */
export async function awaitingOf(
  em: EntityManager,
  run: { id: string; automationId: string; approval: ApprovalRequest | null },
): Promise<AwaitingApproval | null> {
  if (run.approval?.status !== 'pending') return null;
  return {
    waitMs: waitLeft(run.approval),
    notifications: await notificationsOf(em, run.automationId, eventKeyOf(run.id)),
  };
}

/**
 * What the run does once its workflow wakes, on a signal or at its deadline (`timedOut`): a
 * request still pending then expires. The rows are read, not the signal: a decision whose signal
 * was lost is found all the same. Rejected or expired, the run ends with nothing signed and its
 * reservation released; approved, it goes on to sign; pending still, it waits for what is left.
 */
export async function settleApproval(em: EntityManager, runId: string, timedOut: boolean): Promise<ApprovalOutcome> {
  if (timedOut) await moveRequest(em, runId, 'expired');
  const state = await approvalState(em, runId);
  if (!state) return runStatus.failure;
  if (state.status !== runStatus.running) return state.status;
  if (state.sent || state.approval?.status === 'approved') return 'approved';
  if (state.approval?.status === 'pending') return { waitMs: waitLeft(state.approval) };
  return endRefused(em, runId, state.approval);
}

/**
 * Ends a running run whose request was rejected or expired, nothing signed, its reservation
 * released: after its wait, or when a workflow started again by the reconciler finds it so.
 */
export async function endRefused(em: EntityManager, runId: string, request: ApprovalRequest | null) {
  await failUnsent(em, runId, await endOf(em, runId, request));
  await settleReservationsOf(em, runId);
  return (await approvalState(em, runId))?.status ?? runStatus.failure;
}

async function endOf(em: EntityManager, runId: string, request: ApprovalRequest | null) {
  if (request?.status === 'rejected') {
    const rejection = (await decisionsOf(em, [runId])).find((row) => row.decision === 'reject');
    const by = rejection ? `The key ${rejection.key_id}` : 'A key';
    return { name: runErrorName.ApprovalRejected, message: `${by} rejected the run; nothing was signed.` };
  }
  const deadline = request?.deadline ?? 'its deadline';
  const message = `The run was not approved by ${deadline}; nothing was signed.`;
  return { name: runErrorName.ApprovalExpired, message };
}

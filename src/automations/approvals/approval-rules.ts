/**
 * approvals/: a run that waits for people before it signs (docs/api.md, "Approvals"). These rules
 * decide whether a run waits and until when; approval.sql.ts holds the run's request and the
 * approvals given; approval-steps.ts is the worker's side (request, then the outcome the workflow
 * waits for); approvals.service.ts and approvals.control.ts are the API's (record, then signal).
 */
import { gasUnits } from '../../chain/gas-amount.ts';
import { durationMs, type ApprovalRule } from '../model/approval.schemas.ts';

/** Whether a run whose transaction costs `fee` (GAS fractions) waits for approvals under `rule`. */
export function needsApproval(rule: ApprovalRule | undefined, fee: bigint): boolean {
  if (!rule) return false;
  if (rule.when?.feeAbove === undefined) return true;
  return fee > gasUnits(rule.when.feeAbove);
}

/** When a run asking for approvals at `from` stops waiting. */
export const approvalDeadline = (rule: ApprovalRule, from: Date) =>
  new Date(from.getTime() + durationMs(rule.timeout)!);

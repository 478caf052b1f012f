/**
 * The API's answers, as the OpenAPI document declares them (the typed client's generated types),
 * and what the console reads of answers not declared there yet.
 */
import type * as Api from '../../clients/typescript/src/generated/types.gen.ts';

export type Pagination = Api.Pagination;
export type Automation = Api.AutomationDetails;
export type FunctionSummary = Api.FunctionSummary;
export type FunctionDetails = Api.Function;
export type ExecutionSummary = Api.ExecutionSummary;
export type ExecutionDetails = Api.Execution;
export type Signer = Api.SignerDetails;
export type Replay = Api.Replay;
export type Session = Api.ConsoleSession;
/** A run as listed, or as retrieved (with its notifications), and its approval where the API has one. */
export type Run = Api.AutomationRun & {
  notifications?: Api.AutomationRunDetails['notifications'];
  approval?: Approval | null;
};

/** A run's approval (issue 47): waiting for `required` approvals before its transaction is signed. */
export interface Approval {
  status: string;
  required?: number;
  deadline?: string;
  fees?: Record<string, string>;
  approvals?: { keyId?: string; keyName?: string | null; at?: string }[];
  [field: string]: unknown;
}

/** An audit event (issue 47), as the audit log's API is to answer it; read defensively. */
export interface AuditEvent {
  id: string;
  at?: string;
  createdAt?: string;
  action: string;
  actor?: { keyId?: string; keyName?: string | null; role?: string | null } | string;
  resource?: { type?: string; id?: string } | string;
  [field: string]: unknown;
}

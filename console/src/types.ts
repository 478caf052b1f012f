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
/** A run as listed, or as retrieved (with its notifications); `approval` when its action asks for approvals. */
export type Run = Api.AutomationRun & { notifications?: Api.AutomationRunDetails['notifications'] };
/** A run's wait for approvals before its transaction is signed (docs/api.md, "Approvals"). */
export type Approval = Api.RunApproval;
/** One change in the audit log (docs/api.md, "Audit log"). */
export type AuditEvent = Api.AuditEvent;

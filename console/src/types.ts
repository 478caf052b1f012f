/** The API's answers, as far as the console reads them (the API's reference: /docs). */

export interface Pagination {
  total: number;
  limit: number;
  offset: number;
  hasMore: boolean;
}

export interface Trigger {
  type: string;
  [field: string]: unknown;
}

export interface GasFigures {
  spentToday: string;
  spentTotal: string;
  reserved: string;
  leftToday: string | null;
  leftTotal: string | null;
}

export interface Automation {
  id: string;
  name: string;
  network: string;
  status: 'active' | 'inactive' | 'error';
  trigger: Trigger;
  action: { type: string; [field: string]: unknown };
  details?: { reason: string; message: string };
  executionStats?: {
    lastExecution: string | null;
    lastStatus: string | null;
    successCount: number;
    failureCount: number;
    nextExecution: string | null;
  };
  gas?: GasFigures;
  createdAt: string;
}

export interface RunError {
  name: string;
  message: string;
  status?: number;
  body?: string;
}

/** A run's approval (issue 47): waiting for `required` approvals before its transaction is signed. */
export interface Approval {
  status: string;
  required?: number;
  deadline?: string;
  fees?: Record<string, string>;
  approvals?: { keyId?: string; keyName?: string | null; at?: string }[];
  [field: string]: unknown;
}

export interface Run {
  id: string;
  network: string;
  status: string;
  startedAt: string;
  completedAt: string | null;
  duration: number | null;
  trigger: Trigger;
  retryOf?: string;
  executionId?: string;
  skipped?: string;
  calls?: { scriptHash: string; operation: string; args: { type: string; value: unknown }[] }[];
  txHash?: string | null;
  vmState?: string | null;
  gasConsumed?: string | null;
  systemFee?: string | null;
  networkFee?: string | null;
  validUntilBlock?: number | null;
  relayError?: string | null;
  error: RunError | null;
  notifications?: { id: string; channel: string; event: string; status: string; attempts: number }[];
  /** Issue 47 (approvals), where the API has it: the run's approval state. */
  approval?: Approval | null;
}

export interface FunctionSummary {
  id: string;
  name: string;
  runtime: string;
  description: string | null;
  lastInvocation: string | null;
  updatedAt: string;
}

export interface FunctionDetails extends FunctionSummary {
  version: number;
  timeout: number;
  secrets: string[];
  stats: { invocations: { total: number; success: number; failed: number; last24Hours: number } };
}

export interface ExecutionSummary {
  id: string;
  status: string;
  startedAt: string;
  completedAt?: string;
  duration?: number;
  functionVersion: number | null;
  hasError: boolean;
}

export interface ExecutionDetails extends ExecutionSummary {
  functionId: string;
  params: Record<string, unknown>;
  result?: unknown;
  error?: { name: string; message: string };
  logs: { level: string; message: string; timestamp: string }[];
  secretsRead: string[];
  trigger: { type: string; [field: string]: unknown };
}

export interface NetworkFigures {
  name: string;
  gasBalance: string | null;
  spend: { today: string; total: string; reserved: string };
}

export interface Signer {
  id: string;
  name: string;
  type: string;
  address: string;
  networks?: NetworkFigures[];
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

/**
 * The ways a function execution and an automation run stand and end, said once: their statuses,
 * the one mapping between them, and every error name the service gives a run or an execution
 * (docs/api.md). Plain values and no imports, so workflows use it too; the rows, the SQL, the
 * sandbox, the metrics and the API's schemas take their names from here
 * (test/unit/outcome-vocabulary.test.ts keeps them from being spelled anywhere else).
 */

/** Each name as its own key: `executionStatus.failed` is `'failed'`, typed as that literal. */
const named = <const T extends string>(...values: T[]) =>
  Object.fromEntries(values.map((value) => [value, value])) as { readonly [K in T]: K };

export const executionStatus = named('running', 'completed', 'failed');
export type ExecutionStatus = keyof typeof executionStatus;
export const executionStatuses = Object.values(executionStatus);
export type EndedExecutionStatus = Exclude<ExecutionStatus, 'running'>;

/**
 * How a run ended, as its workflow returns it (and the Web UI shows it): never the result value,
 * a log line or anything else the code produced, which may hold a secret it read.
 */
export interface ExecutionOutcome {
  /** `deleted`: its function was deleted, and the record with it. */
  status: typeof executionStatus.completed | typeof executionStatus.failed | 'deleted';
  durationMs: number | null;
  /** The error's name when it failed (`TimeoutError`, `TypeError`, …). */
  errorName: string | null;
}

export const runStatus = named('running', 'success', 'failure');
export type RunStatus = keyof typeof runStatus;
export const runStatuses = Object.values(runStatus);
export type EndedRunStatus = Exclude<RunStatus, 'running'>;

/** How a run that ran a function ends: as its execution did. */
export const runStatusOf = {
  completed: runStatus.success,
  failed: runStatus.failure,
} as const satisfies Record<EndedExecutionStatus, EndedRunStatus>;

/** The same mapping read back: the ended execution status a run's end counts as. */
export const executionStatusOfRun = {
  [runStatusOf.completed]: executionStatus.completed,
  [runStatusOf.failed]: executionStatus.failed,
} as const satisfies Record<EndedRunStatus, EndedExecutionStatus>;

/** How a replay of past blocks stands and ends (docs/api.md, "Replays"). */
export const replayStatus = named('running', 'completed', 'failed');
export type EndedReplayStatus = Exclude<keyof typeof replayStatus, 'running'>;
export const replayStatuses = Object.values(replayStatus);

/** How a notification's delivery stands and ends. */
export const notificationStatus = named('pending', 'delivered', 'failed');
export type NotificationStatus = keyof typeof notificationStatus;
export const notificationStatuses = Object.values(notificationStatus);

/**
 * How the reconciler finds the workflow of an execution, run or delivery recorded as running:
 * still running, closed (its end perhaps never recorded), or never started.
 */
export const workflowStanding = named('running', 'closed', 'missing');

/**
 * The names the service gives a failed execution (and a run whose function failed copies): the
 * sandbox's ends, the services' refusals the code may leave uncaught, and `ExecutionLostError` when
 * the worker could not run it or its end was never recorded (a run's too, docs/api.md).
 */
export const executionErrorName = named(
  'TimeoutError',
  'MemoryLimitError',
  'ResultTooLargeError',
  'ResultNotSerializableError',
  'EntryPointError',
  'CancelledError',
  'ExecutionLostError',
  'ServiceArgumentError',
  'ServiceQuotaError',
  'HostNotAllowedError',
  'RedirectNotAllowedError',
  'EgressRefusedError',
  'ResponseTooLargeError',
  'FetchTimeoutError',
  'FetchNetworkError',
  'FetchCancelledError',
  'FetchQuotaError',
  'StorageError',
  'StorageKeyError',
  'StorageValueError',
  'StorageConflict',
  'StorageQuotaError',
);

/**
 * The names the service gives a failed automation run, beside a function's own error and
 * `ExecutionLostError` (its execution deleted with its function, or its action's workflow closed
 * without the run's end recorded), which it shares with executions.
 */
export const runErrorName = named(
  'FunctionNotFound',
  'InvalidDecision',
  'ContractFault',
  'TemplateError',
  'TransactionExpired',
  'BudgetExceeded',
  'TransactionRejected',
  'NoSigner',
  'WebhookFailed',
  'ActionError',
  'InputQuarantined',
  'NoCalls',
  'RunLimitExceeded',
  'SignerUnavailable',
  'SignerMismatch',
  'ApprovalRejected',
  'ApprovalExpired',
);
/** A name the service gives a failed run: its own, or `ExecutionLostError` it shares with executions. */
export type RunErrorName = keyof typeof runErrorName | typeof executionErrorName.ExecutionLostError;

/** A replay's own end when it cannot go on (docs/api.md, "Replays"). */
export const replayErrorName = named('ReplayFailed');

/**
 * The name the platform gives what `AbortSignal.timeout()` aborts (a DOMException): read, never
 * set, by the service; the same word as the sandbox's own timeout.
 */
export const platformTimeoutName = executionErrorName.TimeoutError;

/**
 * Errors are values: a code from the contract's tables (lower-case here; the automations and
 * secrets areas upper-case it on the wire), one human sentence, and details for the client.
 */
export const errorStatus = {
  invalid_request: 400,
  invalid_function_code: 400,
  invalid_cron: 400,
  invalid_script_hash: 400,
  interval_too_short: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  function_not_found: 404,
  execution_not_found: 404,
  version_not_found: 404,
  automation_not_found: 404,
  run_not_found: 404,
  replay_not_found: 404,
  key_not_found: 404,
  storage_key_not_found: 404,
  contract_not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  transaction_pending: 409,
  automation_limit_reached: 409,
  function_limit_reached: 409,
  replay_in_progress: 409,
  replay_limit_reached: 409,
  last_key_manager: 409,
  storage_quota_exceeded: 409,
  signer_in_use: 409,
  approval_not_pending: 409,
  already_decided: 409,
  receipt_unavailable: 409,
  payload_too_large: 413,
  rate_limit_exceeded: 429,
  execution_queue_full: 429,
  execution_error: 500,
  internal_error: 500,
  service_unavailable: 503,
  signer_unavailable: 503,
} as const;

export type ErrorCode = keyof typeof errorStatus;

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly details: Record<string, unknown>;
  readonly headers: Record<string, string>;

  constructor(
    code: ErrorCode,
    message: string,
    details: Record<string, unknown> = {},
    headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'AppError';
    this.code = code;
    this.details = details;
    this.headers = headers;
  }

  get status(): number {
    return errorStatus[this.code];
  }
}

export const invalidRequest = (message: string, field?: string) =>
  new AppError('invalid_request', message, field === undefined ? {} : { field });

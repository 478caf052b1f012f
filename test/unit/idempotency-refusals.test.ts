import { describe, expect, it } from 'vitest';
import { forNow } from '../../src/api/idempotency.ts';
import { AppError, type ErrorCode } from '../../src/errors.ts';

const refusal = (code: ErrorCode) => new AppError(code, 'refused');

describe('the refusals an Idempotency-Key keeps nothing for', () => {
  it.each<ErrorCode>([
    'automation_limit_reached',
    'replay_in_progress',
    'transaction_pending',
    'storage_quota_exceeded',
    'conflict',
    'rate_limit_exceeded',
    'execution_queue_full',
    'service_unavailable',
    'internal_error',
    'invalid_request',
  ])('%s: the same request may pass once the condition clears', (code) => {
    expect(forNow(refusal(code))).toBe(true);
  });

  it.each<ErrorCode>(['function_not_found', 'automation_not_found', 'execution_error', 'forbidden'])(
    '%s: kept, answered again to the same request',
    (code) => {
      expect(forNow(refusal(code))).toBe(false);
    },
  );
});

import { AppError } from '../errors.ts';
import { codeChecks } from '../metrics/metrics.ts';
import { validateFunctionCode } from '../sandbox/validate.ts';
import type { Language } from './function.entity.ts';

/**
 * 400 invalid_function_code, with the line and column of a syntax error when known; 429 when the
 * account already has as many TypeScript codes waiting to be stripped as it may. Never called
 * under a lock: stripping TypeScript takes up to its deadline (src/sandbox/type-stripper.ts).
 */
export async function assertValidCode(code: string, runtime: Language, accountId: string) {
  codeChecks.inc({ runtime });
  const verdict = await validateFunctionCode(code, runtime === 'typescript', accountId);
  if (verdict.ok) return;
  if ('busy' in verdict) {
    throw new AppError(
      'rate_limit_exceeded',
      `${verdict.message} Retry shortly.`,
      { retryAfter: 1 },
      { 'Retry-After': '1' },
    );
  }
  const position = verdict.line === undefined ? {} : { line: verdict.line, column: verdict.column };
  throw new AppError('invalid_function_code', verdict.message, { field: 'code', ...position });
}

import { AppError } from '../errors.ts';
import { validateFunctionCode } from '../sandbox/validate.ts';
import type { Language } from './function.entity.ts';

/** 400 invalid_function_code, with the line and column of a syntax error when known. */
export function assertValidCode(code: string, runtime: Language) {
  const verdict = validateFunctionCode(code, runtime === 'typescript');
  if (verdict.ok) return;
  const position = verdict.line === undefined ? {} : { line: verdict.line, column: verdict.column };
  throw new AppError('invalid_function_code', verdict.message, { field: 'code', ...position });
}

import type { z } from 'zod';
import { AppError, errorStatus, type ErrorCode } from '../errors.ts';

/** Parses a JSON body against a strict schema; every failure is a 400 naming the field. */
export function parseBody<T extends z.ZodType>(schema: T, body: unknown): z.infer<T> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new AppError('invalid_request', 'The request body must be a JSON object.');
  }
  return parse(schema, body);
}

/** Parses query parameters (strings) against a schema that coerces them. */
export function parseQuery<T extends z.ZodType>(schema: T, query: Record<string, unknown>): z.infer<T> {
  return parse(schema, query);
}

function parse<T extends z.ZodType>(schema: T, input: unknown): z.infer<T> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  throw validationError(result.error.issues[0]!, input);
}

function validationError(issue: z.core.$ZodIssue, input: unknown): AppError {
  if (issue.code === 'unrecognized_keys') {
    const field = [...issue.path, issue.keys[0]].join('.');
    return new AppError('invalid_request', `Unknown field "${field}".`, { field });
  }
  const field = issue.path.join('.');
  if (!field) return new AppError('invalid_request', `The request ${issue.message}.`);
  const missing = issue.code === 'invalid_type' && valueAt(input, issue.path) === undefined;
  const message = missing ? `"${field}" is required.` : `"${field}" ${issue.message}.`;
  return new AppError(codeOf(issue), message, { field });
}

/** A schema names its own error code, such as `invalid_cron`, in the issue's params. */
function codeOf(issue: z.core.$ZodIssue): ErrorCode {
  const code = issue.code === 'custom' ? (issue.params as { errorCode?: string } | undefined)?.errorCode : undefined;
  return code !== undefined && code in errorStatus ? (code as ErrorCode) : 'invalid_request';
}

function valueAt(input: unknown, path: PropertyKey[]): unknown {
  return path.reduce<unknown>((value, key) => (value as Record<PropertyKey, unknown> | undefined)?.[key], input);
}

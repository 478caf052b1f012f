import { nestingDepth } from '../json/json-depth.ts';
import { parseWellFormed } from '../json/well-formed.ts';
import { sandboxError } from './errors.ts';
import { type SandboxError } from './types.ts';
import { executionErrorName } from '../shared/outcomes.ts';

export const maxResultBytes = 1024 * 1024;
/** As deep as a request body may nest: a result must be as easy to store and serve as a body. */
export const maxResultDepth = 64;

type DecodedResult = { ok: true; result: unknown } | { ok: false; error: SandboxError };

/**
 * Turns the JSON text the isolate produced into the stored result: at most 1 MiB and 64 levels,
 * measured before parsing, with lone surrogates replaced so that every store accepts it.
 */
export function decodeResult(json: string | undefined): DecodedResult {
  // JSON.stringify(undefined) is undefined: a function that returns nothing completes with null.
  if (json === undefined) return { ok: true, result: null };
  const bytes = Buffer.byteLength(json, 'utf8');
  if (bytes > maxResultBytes) {
    const size = (bytes / maxResultBytes).toFixed(2);
    return {
      ok: false,
      error: sandboxError(
        executionErrorName.ResultTooLargeError,
        `The result is ${size} MiB as JSON; the limit is 1 MiB.`,
      ),
    };
  }
  const depth = nestingDepth(json);
  if (depth > maxResultDepth) {
    const message = `The result is not JSON-serializable: it nests ${depth} levels deep; the limit is ${maxResultDepth}.`;
    return { ok: false, error: sandboxError(executionErrorName.ResultNotSerializableError, message) };
  }
  return { ok: true, result: parseWellFormed(json) };
}

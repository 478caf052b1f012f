import { sandboxError } from './errors.ts';
import { type SandboxError } from './types.ts';

const MAX_RESULT_BYTES = 1024 * 1024;

type DecodedResult = { ok: true; result: unknown } | { ok: false; error: SandboxError };

/** Turns the JSON text the isolate produced into the stored result, enforcing the 1 MiB cap. */
export function decodeResult(json: string | undefined): DecodedResult {
  // JSON.stringify(undefined) is undefined: a function that returns nothing completes with null.
  if (json === undefined) return { ok: true, result: null };
  const bytes = Buffer.byteLength(json, 'utf8');
  if (bytes > MAX_RESULT_BYTES) {
    const size = (bytes / MAX_RESULT_BYTES).toFixed(2);
    return {
      ok: false,
      error: sandboxError('ResultTooLargeError', `The result is ${size} MiB as JSON; the limit is 1 MiB.`),
    };
  }
  return { ok: true, result: JSON.parse(json) };
}

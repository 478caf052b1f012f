import ivm from 'isolated-vm';
import { compileUserCode, describeSyntaxError, importsUnavailable } from './compile.ts';
import { typeStripper, type TypeStripper } from './type-stripper.ts';

type CodeValidation =
  | { ok: true }
  | { ok: false; message: string; line?: number; column?: number }
  /** TypeScript not checked: its account has as many codes waiting to be stripped as it may. */
  | { ok: false; busy: true; message: string };

export const entryFormsHint =
  'Define the function as module.exports = async (context) => ..., export default async function (context) {...}, ' +
  'exports.handler = ..., or a top-level async function main(context) {...}.';

// A textual check: running the code to look at its exports would execute user code at save time.
// Linear in the code: a line start is followed by spaces and tabs only, never `\s*`, which would
// rescan a run of blank lines from each of its line starts (quadratic).
const entryForms = [
  /\bmodule\s*\.\s*exports\s*=/,
  /\bexports\s*\.\s*handler\s*=/,
  /^[ \t]*export\s+default\b/m,
  /^[ \t]*(?:async\s+)?function\s*\*?\s*main\s*\(/m,
];

// Compiling needs a heap; 16 MiB comfortably holds the 256 KiB the contract allows.
const validationMemoryMb = 16;

/**
 * Parses the code in a throwaway isolate (nothing runs) and checks that it defines an entry point;
 * TypeScript is first stripped of its types, which keeps every position of the code, in a thread
 * of `stripper` (type-stripper.ts), in the lane of `account`.
 */
export async function validateFunctionCode(
  source: string,
  typescript: boolean,
  account: string,
  stripper: TypeStripper = typeStripper,
): Promise<CodeValidation> {
  if (!typescript) return validateJavaScript(source);
  const stripped = await stripper.strip(source, account);
  if (stripped.ok) return validateJavaScript(stripped.code);
  if (!('refused' in stripped)) {
    const { message, line, column } = stripped;
    return { ok: false, message: `The code does not parse as TypeScript: ${message}.`, line, column };
  }
  if (stripped.refused === 'busy') return { ok: false, busy: true, message: stripped.message };
  const advice = stripped.refused === 'deadline' ? 'make it smaller' : 'nest it less deeply';
  return { ok: false, message: `The code could not be stripped of its types (${stripped.message}): ${advice}.` };
}

/** Parses JavaScript in a throwaway isolate (nothing runs) and checks that it defines an entry point. */
export async function validateJavaScript(code: string): Promise<CodeValidation> {
  const isolate = new ivm.Isolate({ memoryLimit: validationMemoryMb });
  try {
    const compiled = await compileUserCode(isolate, code);
    if (compiled.kind === 'module' && compiled.module.dependencySpecifiers.length > 0) {
      return { ok: false, message: importsUnavailable };
    }
  } catch (error) {
    const { message, line, column } = describeSyntaxError(error);
    return { ok: false, message: `The code does not parse: ${message}.`, line, column };
  } finally {
    isolate.dispose();
  }
  if (!entryForms.some((form) => form.test(code))) return { ok: false, message: entryFormsHint };
  return { ok: true };
}

import ivm from 'isolated-vm';
import { compileUserCode, describeSyntaxError, importsUnavailable } from './compile.ts';
import { stripTypes } from './typescript.ts';

type CodeValidation = { ok: true } | { ok: false; message: string; line?: number; column?: number };

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
 * TypeScript is first stripped of its types, which keeps every position of the code.
 */
export function validateFunctionCode(source: string, typescript = false): CodeValidation {
  const stripped = typescript ? stripTypes(source) : { ok: true as const, code: source };
  if (!stripped.ok) {
    const { message, line, column } = stripped;
    return { ok: false, message: `The code does not parse as TypeScript: ${message}.`, line, column };
  }
  const { code } = stripped;
  const isolate = new ivm.Isolate({ memoryLimit: validationMemoryMb });
  try {
    const compiled = compileUserCode(isolate, code);
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

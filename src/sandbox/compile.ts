import type ivm from 'isolated-vm';

/** The user's code is compiled under this name so that its stack frames read well. */
export const userFilename = 'function.js';

export const importsUnavailable = 'Functions cannot import modules.';

type CompiledCode = { kind: 'script'; script: ivm.Script } | { kind: 'module'; module: ivm.Module };

interface CodeSyntaxError {
  message: string;
  line?: number;
  column?: number;
}

// V8 rejects module syntax in a script with these messages; only then is the module parse meaningful.
const moduleOnlySyntax = /'export'|'import'|import statement outside a module|import\.meta/;
// isolated-vm appends the position to a compile error's message: "Unexpected token ';' [function.js:3:9]".
const positionSuffix = /\s*\[[^\]]*:(\d+):(\d+)\]$/;

/**
 * Compiles user code as a script (CommonJS forms and top-level `main`), or as a module when it uses
 * module syntax (`export default`). Compiling runs none of the code, in the isolate's own thread:
 * 256 KiB take V8 up to ~0.3 s, which the event loop does not wait for. Throws the compile error.
 */
export async function compileUserCode(isolate: ivm.Isolate, code: string): Promise<CompiledCode> {
  const origin = { filename: userFilename };
  try {
    return { kind: 'script', script: await isolate.compileScript(code, origin) };
  } catch (error) {
    if (!(error instanceof Error) || !moduleOnlySyntax.test(error.message)) throw error;
  }
  return { kind: 'module', module: await isolate.compileModule(code, origin) };
}

/** Reads the position isolated-vm appends to a compile error, and strips it from the message. */
export function describeSyntaxError(error: unknown): CodeSyntaxError {
  const text = error instanceof Error ? error.message : String(error);
  const match = positionSuffix.exec(text);
  if (!match) return { message: text };
  return { message: text.slice(0, match.index), line: Number(match[1]), column: Number(match[2]) };
}

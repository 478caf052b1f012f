import { stripTypeScriptTypes } from 'node:module';
import { userFilename } from './compile.ts';

export type StrippedCode = { ok: true; code: string } | { ok: false; message: string; line?: number; column?: number };

// Node prefixes the stack of a refused source with `<sourceUrl>:<line>` and a snippet whose last
// marked line is a caret line under the offending span (tabs shown as 4 columns, wide characters
// as 2). That is the only place the position is given.
const positionHeader = new RegExp(`^${userFilename.replace('.', '\\.')}:(\\d+)\\n`);
const caretLine = /^ *\^+$/m;

/**
 * Removes TypeScript's types with Node's own type stripping, which replaces each annotation with
 * spaces: the JavaScript keeps every line and column, so syntax errors and stack frames read
 * against the TypeScript the author wrote. Syntax that needs transforming (enums, namespaces,
 * parameter properties) is refused, as Node refuses it.
 */
export function stripTypes(code: string): StrippedCode {
  try {
    return { ok: true, code: quietly(() => stripTypeScriptTypes(code, { mode: 'strip', sourceUrl: userFilename })) };
  } catch (error) {
    if (!(error instanceof Error) || !String((error as { code?: unknown }).code).includes('TYPESCRIPT_SYNTAX')) {
      throw error;
    }
    return { ok: false, message: error.message, ...position(error.stack ?? '', code) };
  }
}

function position(stack: string, code: string): { line?: number; column?: number } {
  const header = positionHeader.exec(stack);
  if (!header) return {};
  const line = Number(header[1]);
  const snippet = stack.slice(header[0].length);
  const caret = caretLine.exec(snippet);
  const source = code.split('\n')[line - 1];
  if (!caret || source === undefined) return { line };
  const shownBefore =
    snippet
      .slice(0, caret.index - 1)
      .split('\n')
      .at(-1) ?? '';
  // The caret sits under the line shown just above it: the reported line when it matches.
  if (expandTabs(shownBefore) !== expandTabs(source)) return { line };
  const column = columnAt(source, caret[0].indexOf('^'));
  return column === undefined ? { line } : { line, column };
}

function expandTabs(text: string) {
  return text.replaceAll('\t', '    ');
}

/** The 1-based UTF-16 column of the character shown at display column `shown` (0-based). */
function columnAt(source: string, shown: number): number | undefined {
  let width = 0;
  let units = 0;
  for (const character of source) {
    if (width === shown) return units + 1;
    if (width > shown) return undefined;
    width += displayWidth(character);
    units += character.length;
  }
  return width === shown ? units + 1 : undefined;
}

// East Asian wide and fullwidth ranges and emoji, as a terminal (and the snippet) shows them.
const wide =
  /[\u1100-\u115F\u2E80-\u303E\u3041-\u33FF\u3400-\u4DBF\u4E00-\u9FFF\uA000-\uA4CF\uAC00-\uD7A3\uF900-\uFAFF\uFE30-\uFE4F\uFF00-\uFF60\uFFE0-\uFFE6\u{1F300}-\u{1F64F}\u{1F900}-\u{1F9FF}\u{20000}-\u{3FFFD}]/u;

function displayWidth(character: string): number {
  if (character === '\t') return 4;
  return wide.test(character) ? 2 : 1;
}

/** Node warns once per process that type stripping is experimental: not something to log. */
function quietly<T>(action: () => T): T {
  // eslint-disable-next-line @typescript-eslint/unbound-method -- put back on the same object below.
  const emit = process.emitWarning;
  process.emitWarning = () => {};
  try {
    return action();
  } finally {
    process.emitWarning = emit;
  }
}

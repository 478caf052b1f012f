import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

// One home per table: every hand-written statement lives in a `*.sql.ts` module beside the
// entity (or the steps) whose table it reads or writes, so that a reader finds all that touches a
// table in one file, and the storable boundary (src/db/storable.ts) is applied there. This reads
// every string and template literal of the production code and fails on one that starts a
// statement anywhere else (migrations are statements by nature).
const roots = ['src', 'activities', 'workflows', 'worker'];

const sources = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return path === join('src', 'db', 'migrations') ? [] : sources(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });

const statementStart =
  /^\s*(?:select\s|insert\s+into\s|update\s+(?:"?\w+"?\s+(?:as\s+\w+\s+)?set\b|"$)|delete\s+from\s|with\s+(?:recursive\s+)?"?\w+"?\s+as\s)/i;

/** The text each string or template literal of `path` starts with (a template's text up to its first `${`). */
function literalStarts(path: string): { line: number; text: string }[] {
  const file = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, true);
  const found: { line: number; text: string }[] = [];
  const visit = (node: ts.Node) => {
    const text =
      ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)
        ? node.text
        : ts.isTemplateExpression(node)
          ? node.head.text
          : undefined;
    if (text !== undefined) found.push({ line: file.getLineAndCharacterOfPosition(node.getStart()).line + 1, text });
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

/** Where a statement starts outside the homes: `path:line`. */
function strayStatements(): string[] {
  return roots
    .flatMap(sources)
    .filter((path) => !path.endsWith('.sql.ts'))
    .flatMap((path) =>
      literalStarts(path)
        .filter(({ text }) => statementStart.test(text))
        .map(({ line }) => `${path}:${line}`),
    );
}

describe('one home per table', () => {
  it('finds a statement by how it starts, whatever its quotes', () => {
    const starts = [
      'select 1',
      'insert into "t" ("a") values (?)',
      'update "t" set "a" = ?',
      'update t set a = 1',
      'update "automation_runs" as r set',
      'update "',
      'delete from "t" where "id" = ?',
      'with "ended" as (update "t" set "a" = 1 returning "id") select 1',
      '\n  select count(*) from "t"',
    ];
    for (const text of starts) expect(statementStart.test(text), text).toBe(true);
    for (const text of ['selected 1', 'update the key', 'with its reason', 'delete it']) {
      expect(statementStart.test(text), text).toBe(false);
    }
  });

  it('keeps every raw SQL statement in a *.sql.ts module or a migration', () => {
    expect(strayStatements()).toEqual([]);
  });
});

import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

// One home per table and capability: every hand-written statement lives in a `*.sql.ts` module
// beside the code that runs it, named `<table>[-<capability>].sql.ts` after the table it serves,
// so that a reader finds a table's statements by name (and `grep` finds every writer), and the
// storable boundary (src/db/storable.ts) is applied there. This reads every string and template
// literal of the production code and fails on one that starts a statement anywhere else
// (migrations are statements by nature), and on a home named after no table it names.
const roots = ['src', 'activities', 'workflows', 'worker'];
const sqlHome = '.sql.ts';

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
    .filter((path) => !path.endsWith(sqlHome))
    .flatMap((path) =>
      literalStarts(path)
        .filter(({ text }) => statementStart.test(text))
        .map(({ line }) => `${path}:${line}`),
    );
}

/** The tables a home's statements name (a `with` query's own names are not tables). */
function tablesNamed(text: string): Set<string> {
  const queries = new Set([...text.matchAll(/"(\w+)"\s+as\s+(?:(?:not\s+)?materialized\s+)?\(/gi)].map((m) => m[1]!));
  const named = [...text.matchAll(/\b(?:from|into|update|join)\s+"(\w+)"/gi)].map((m) => m[1]!);
  return new Set(named.filter((name) => !queries.has(name)));
}

/**
 * The names a table's home may start with: the table's words, the last in the singular, and any
 * tail of them (its folder says the rest: `automation_runs` is `run` in src/automations/).
 */
function entityNames(table: string): string[] {
  const words = table.split('_');
  const last = words.pop()!;
  words.push(last.replace(/ies$/, 'y').replace(/([^s])s$/, '$1'));
  return words.map((_, first) => words.slice(first).join('-'));
}

/** Whether `name` is `<entity>` or `<entity>-<capability>` for a table of `tables`. */
const namedAfter = (name: string, tables: Set<string>) =>
  [...tables].flatMap(entityNames).some((entity) => name === entity || name.startsWith(`${entity}-`));

/**
 * The homes named after no table they name: `path`. A home whose statements name no table, or any
 * (a ping; the rotation of every sealed table), is named after what it does.
 */
function misnamedHomes(): string[] {
  return roots
    .flatMap(sources)
    .filter((path) => path.endsWith(sqlHome))
    .filter((path) => {
      const tables = tablesNamed(readFileSync(path, 'utf8'));
      return tables.size > 0 && !namedAfter(basename(path, sqlHome), tables);
    });
}

describe('one home per table and capability', () => {
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

  // Parsing every production file is the point, and grows with the code: time for a loaded machine.
  it('keeps every raw SQL statement in a *.sql.ts module or a migration', { timeout: 30_000 }, () => {
    expect(strayStatements()).toEqual([]);
  });

  it("reads a home's name as its table, then its capability", () => {
    expect(entityNames('automation_runs')).toEqual(['automation-run', 'run']);
    expect(entityNames('watcher_entities')).toEqual(['watcher-entity', 'entity']);
    expect(entityNames('function_storage')).toEqual(['function-storage', 'storage']);
    const runs = tablesNamed('with "this" as materialized (select 1) select * from "automation_runs" r join "this"');
    expect([...runs]).toEqual(['automation_runs']);
    for (const name of ['run', 'run-contract', 'automation-run-stats']) expect(namedAfter(name, runs), name).toBe(true);
    for (const name of ['runs', 'runner', 'contract-run', 'this']) expect(namedAfter(name, runs), name).toBe(false);
  });

  it('names every *.sql.ts module after a table it serves', () => {
    expect(misnamedHomes()).toEqual([]);
  });
});

import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import {
  executionErrorName,
  executionStatus,
  executionStatusOfRun,
  replayErrorName,
  runErrorName,
  runStatus,
  runStatusOf,
} from '../../src/shared/outcomes.ts';

const root = new URL('../../', import.meta.url).pathname;

/** The names a run or an execution stands or ends with: spelled in src/shared/outcomes.ts alone. */
const names = new Set<string>([
  ...Object.values(executionStatus),
  ...Object.values(runStatus),
  ...Object.values(executionErrorName),
  ...Object.values(runErrorName),
  ...Object.values(replayErrorName),
]);

/**
 * The code of src/, workflows/, activities/ and worker/, the CLI's too, but for the dev stack
 * (`neoflow up`'s own status lines), the vocabulary itself and the migrations: a migration is
 * history, never edited.
 */
function productionFiles(): string[] {
  return ['src', 'workflows', 'activities', 'worker']
    .flatMap((dir) =>
      readdirSync(join(root, dir), { recursive: true, encoding: 'utf8' }).map((file) => join(dir, file)),
    )
    .filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts'))
    .filter((file) => !/^src\/(stack|db\/migrations)\//.test(file) && file !== 'src/shared/outcomes.ts');
}

/**
 * Where a file spells a name: a string literal that is the name (a value, or a literal type), or a
 * name quoted as SQL's string literal inside a template (`"status" = 'running'`). A property's
 * name (`{ 'failed': … }`, `Page['failed']`) is a key, not a status.
 */
function spelled(file: string): string[] {
  const text = readFileSync(join(root, file), 'utf8');
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const at = (node: ts.Node, name: string) =>
    found.push(`${file}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1} ${name}`);
  const visit = (node: ts.Node) => {
    if (ts.isStringLiteral(node) && names.has(node.text) && !isKey(node)) at(node, node.text);
    if (
      ts.isNoSubstitutionTemplateLiteral(node) ||
      ts.isTemplateHead(node) ||
      ts.isTemplateMiddle(node) ||
      ts.isTemplateTail(node)
    ) {
      for (const [, name] of node.text.matchAll(/'([A-Za-z]+)'/g)) if (names.has(name!)) at(node, `'${name}'`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

function isKey(node: ts.StringLiteral): boolean {
  const parent = node.parent;
  if ((ts.isPropertyAssignment(parent) || ts.isPropertySignature(parent)) && parent.name === node) return true;
  return (
    ts.isLiteralTypeNode(parent) && ts.isIndexedAccessTypeNode(parent.parent) && parent.parent.indexType === parent
  );
}

describe('one vocabulary of outcomes (src/shared/outcomes.ts)', () => {
  it('no status or error name of a run or an execution is spelled outside it', () => {
    const files = productionFiles();
    expect(files.length).toBeGreaterThan(100);
    expect(files.flatMap(spelled), 'name it from src/shared/outcomes.ts (SQL: interpolate it)').toEqual([]);
  });

  it("names every error the sandbox's own script gives a run (it runs in the isolate and cannot import it)", () => {
    const script = readFileSync(join(root, 'src/sandbox/bootstrap.js'), 'utf8');
    const given = [...script.matchAll(/namedError\(\s*'([A-Za-z]+)'|name: '([A-Za-z]+Error)'/g)].map(
      (m) => m[1] ?? m[2]!,
    );
    expect(given.length).toBeGreaterThan(1);
    expect(given.filter((name) => !names.has(name))).toEqual([]);
  });

  it('maps each ended execution status to a run status, and back, one to one', () => {
    for (const [execution, run] of Object.entries(runStatusOf)) expect(executionStatusOfRun[run]).toBe(execution);
  });
});

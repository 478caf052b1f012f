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

/** The error names of the vocabulary: every name the service writes on a failed run's, execution's or replay's row. */
const errorNames = new Set<string>([
  ...Object.values(executionErrorName),
  ...Object.values(runErrorName),
  ...Object.values(replayErrorName),
]);

/** The language's own error classes: a function throws them, and a service call refuses with `TypeError`. */
const languageErrorNames = new Set(Object.getOwnPropertyNames(globalThis).filter((name) => name.endsWith('Error')));

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

/** Each production file parsed once, for both tests that read the whole code (parsing is their cost). */
const sources = new Map<string, ts.SourceFile>();
function parsed(file: string): ts.SourceFile {
  let source = sources.get(file);
  if (!source) {
    source = ts.createSourceFile(file, readFileSync(join(root, file), 'utf8'), ts.ScriptTarget.Latest, true);
    sources.set(file, source);
  }
  return source;
}

/**
 * Where a file spells a name: a string literal that is the name (a value, or a literal type), or a
 * name quoted as SQL's string literal inside a template (`"status" = 'running'`). A property's
 * name (`{ 'failed': … }`, `Page['failed']`) is a key, not a status.
 */
function spelled(file: string): string[] {
  const source = parsed(file);
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

/**
 * Where a file writes an error's name: an error's shape (`{ name: '…', message }`, the literal on
 * either side of `??` or `?:` too), an outcome's `errorName: '…'`, a `new ServiceError('…', …)`.
 */
function errorNamesWritten(file: string): string[] {
  const source = parsed(file);
  const found: string[] = [];
  const written = (node: ts.Expression) => {
    for (const literal of literalsOf(node)) {
      found.push(`${file}:${source.getLineAndCharacterOfPosition(literal.getStart()).line + 1} ${literal.text}`);
    }
  };
  const visit = (node: ts.Node) => {
    if (ts.isObjectLiteralExpression(node)) {
      const name = property(node, 'name');
      if (name && (property(node, 'message') || hasShorthand(node, 'message'))) written(name);
      const errorName = property(node, 'errorName');
      if (errorName) written(errorName);
    }
    if (ts.isNewExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === 'ServiceError') {
      const [name] = node.arguments ?? [];
      if (name) written(name);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

function property(node: ts.ObjectLiteralExpression, name: string): ts.Expression | undefined {
  for (const member of node.properties) {
    if (ts.isPropertyAssignment(member) && ts.isIdentifier(member.name) && member.name.text === name) {
      return member.initializer;
    }
  }
  return undefined;
}

const hasShorthand = (node: ts.ObjectLiteralExpression, name: string) =>
  node.properties.some((member) => ts.isShorthandPropertyAssignment(member) && member.name.text === name);

function literalsOf(node: ts.Expression): ts.StringLiteralLike[] {
  if (ts.isStringLiteralLike(node)) return [node];
  if (ts.isParenthesizedExpression(node)) return literalsOf(node.expression);
  if (ts.isBinaryExpression(node)) return [...literalsOf(node.left), ...literalsOf(node.right)];
  if (ts.isConditionalExpression(node)) return [...literalsOf(node.whenTrue), ...literalsOf(node.whenFalse)];
  return [];
}

describe('one vocabulary of outcomes (src/shared/outcomes.ts)', () => {
  // Parsing every production file is the point, and grows with the code: time for a loaded machine.
  it('no status or error name of a run or an execution is spelled outside it', { timeout: 30_000 }, () => {
    const files = productionFiles();
    expect(files.length).toBeGreaterThan(100);
    expect(files.flatMap(spelled), 'name it from src/shared/outcomes.ts (SQL: interpolate it)').toEqual([]);
  });

  it("holds every error name the code writes on a row, but the language's own", { timeout: 30_000 }, () => {
    const written = productionFiles().flatMap(errorNamesWritten);
    expect(written.length).toBeGreaterThan(0);
    const unnamed = written.filter((line) => {
      const name = line.split(' ')[1]!;
      return !errorNames.has(name) && !languageErrorNames.has(name);
    });
    expect(unnamed, 'add it to src/shared/outcomes.ts and docs/api.md').toEqual([]);
  });

  it('has docs/api.md name every error it holds', () => {
    const api = readFileSync(join(root, 'docs/api.md'), 'utf8');
    expect([...errorNames].filter((name) => !api.includes(`\`${name}\``))).toEqual([]);
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

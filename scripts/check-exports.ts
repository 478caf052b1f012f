/**
 * Lists the exports of the production code that no other module imports: an export promises a
 * reader that something outside depends on it. Reads every import and re-export of the project
 * (tests, benchmarks and scripts included, as they are importers too).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

const root = resolve(import.meta.dirname, '..');
const productionRoots = ['src', 'workflows', 'activities', 'worker'];
const importerRoots = [...productionRoots, 'test', 'bench', 'scripts', 'clients'];

/** Modules Temporal loads by their path (a worker option names the file), not by an import. */
const loadedByPath = new Set(['src/temporal/failure-converter.ts']);

function sources(dir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(join(root, dir), { recursive: true, encoding: 'utf8' });
  } catch {
    return [];
  }
  return names
    .filter((file) => /\.ts$/.test(file) && !file.endsWith('.d.ts') && !file.includes('node_modules'))
    .map((file) => join(dir, file));
}

const parse = (file: string) =>
  ts.createSourceFile(file, readFileSync(join(root, file), 'utf8'), ts.ScriptTarget.Latest, true);

/** By module: the names other modules import from it; `*` when one takes all of it. */
function importedNames(): Map<string, Set<string>> {
  const imported = new Map<string, Set<string>>();
  const take = (file: string, specifier: string, names: string[]) => {
    if (!specifier.startsWith('.')) return;
    const target = relative(root, resolve(dirname(join(root, file)), specifier));
    const set = imported.get(target) ?? new Set<string>();
    imported.set(target, set);
    for (const name of names) set.add(name);
  };
  for (const file of importerRoots.flatMap(sources)) {
    const visit = (node: ts.Node) => {
      if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
        const bindings = node.importClause?.namedBindings;
        const names =
          bindings && ts.isNamedImports(bindings)
            ? bindings.elements.map((e) => (e.propertyName ?? e.name).text)
            : ['*'];
        take(file, node.moduleSpecifier.text, node.importClause?.name ? [...names, 'default'] : names);
      } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
        const clause = node.exportClause;
        const names =
          clause && ts.isNamedExports(clause) ? clause.elements.map((e) => (e.propertyName ?? e.name).text) : ['*'];
        take(file, node.moduleSpecifier.text, names);
      } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
        const [specifier] = node.arguments;
        if (specifier && ts.isStringLiteral(specifier)) take(file, specifier.text, ['*']);
      }
      ts.forEachChild(node, visit);
    };
    visit(parse(file));
  }
  return imported;
}

function exportedNames(file: string): string[] {
  return parse(file).statements.flatMap((statement) => {
    const exported = ts.canHaveModifiers(statement)
      ? ts.getModifiers(statement)?.some((modifier) => modifier.kind === ts.SyntaxKind.ExportKeyword)
      : false;
    if (!exported) return [];
    if (ts.isVariableStatement(statement)) {
      return statement.declarationList.declarations.flatMap((d) => (ts.isIdentifier(d.name) ? [d.name.text] : []));
    }
    const named = statement as ts.DeclarationStatement;
    return named.name && ts.isIdentifier(named.name) ? [named.name.text] : [];
  });
}

/** `module: name` for each export of the production code that no other module imports. */
export function exportsNobodyImports(): string[] {
  const imported = importedNames();
  return productionRoots
    .flatMap(sources)
    .filter((file) => !loadedByPath.has(file) && !imported.get(file)?.has('*'))
    .flatMap((file) =>
      exportedNames(file)
        .filter((name) => !imported.get(file)?.has(name))
        .map((name) => `${file}: ${name}`),
    );
}

if (import.meta.main) {
  const found = exportsNobodyImports();
  for (const line of found) console.error(`exported, imported nowhere: ${line}`);
  if (found.length > 0) process.exit(1);
}

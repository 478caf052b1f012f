import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { neoflow } from '../support/cli.ts';

const typesFile = fileURLToPath(new URL('../../types/context.d.ts', import.meta.url));

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'neoflow-types-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/** The member names of each interface the types file declares. */
function declaredMembers(): Record<string, string[]> {
  const source = ts.createSourceFile(typesFile, ts.sys.readFile(typesFile)!, ts.ScriptTarget.Latest);
  const members: Record<string, string[]> = {};
  source.forEachChild((node) => {
    if (!ts.isInterfaceDeclaration(node)) return;
    members[node.name.text] = node.members
      .filter((member) => member.name !== undefined)
      .map((member) => (member.name as ts.Identifier).text)
      .sort();
  });
  return members;
}

it('types/context.d.ts declares exactly the context the sandbox gives a function', async () => {
  const probe = join(dir, 'probe.js');
  await writeFile(
    probe,
    `module.exports = async (context) => ({
      context: Object.keys(context).sort(),
      blockchain: Object.keys(context.services.blockchain).sort(),
      random: Object.keys(context.services.random).sort(),
      http: Object.keys(context.services.http).sort(),
      log: Object.keys(context.log).sort(),
      services: Object.keys(context.services).sort(),
      storage: Object.keys(context.storage).sort(),
      execution: Object.keys(context.execution).sort(),
      secretsGet: typeof context.secrets.get,
    });`,
  );
  const ran = await neoflow(['fn', 'run', probe, '--rpc', inject('neoRpcUrl')]);
  const given = JSON.parse(ran.stdout).result;
  const declared = declaredMembers();
  expect(declared.Context).toEqual(given.context);
  expect(declared.Blockchain).toEqual(given.blockchain);
  expect(declared.Random).toEqual(given.random);
  expect(declared.Http).toEqual(given.http);
  expect(declared.Log).toEqual(given.log);
  expect(declared.Storage).toEqual(given.storage);
  expect(given.services).toEqual(['blockchain', 'http', 'random']);
  expect(given.execution).toEqual(['functionId', 'id', 'startedAt']);
  expect(given.secretsGet).toBe('function');
});

it('type-checks every example of docs/functions.md against types/context.d.ts, as an editor would', async () => {
  const page = await readFile(new URL('../../docs/functions.md', import.meta.url), 'utf8');
  // Every js block, and the ts blocks `fn run` checks (another ts block shows code from elsewhere).
  const examples = [...page.matchAll(/(<!-- example: .*? -->\s*)?```(js|ts)\n([\s\S]*?)```/g)]
    .filter(([, example, language]) => language === 'js' || example !== undefined)
    .map(([, , language, code]) => ({
      language: language!,
      code: code!,
    }));
  expect(examples.length).toBeGreaterThanOrEqual(6);
  const files = await Promise.all(
    examples.map(async ({ language, code }, index) => {
      const file = join(dir, `example-${index}.${language}`);
      const typed = code.replace(
        /module\.exports = async \(context\) =>/,
        `module.exports = /** @param {import(${JSON.stringify(typesFile)}).Context} context */ async (context) =>`,
      );
      await writeFile(file, `// @ts-check\n${typed}`);
      return file;
    }),
  );
  // The types file is in the program as an editor's project holds it: its globals apply to every file.
  const program = ts.createProgram([typesFile, ...files], {
    allowJs: true,
    checkJs: true,
    noEmit: true,
    strict: true,
    target: ts.ScriptTarget.ES2022,
    lib: ['lib.es2022.d.ts'],
    types: [],
  });
  const problems = ts
    .getPreEmitDiagnostics(program)
    .map(
      (diagnostic) =>
        `${diagnostic.file?.fileName ?? ''}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`,
    );
  expect(problems).toEqual([]);
});

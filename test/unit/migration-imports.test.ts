import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');
const migrationsDir = 'src/db/migrations';

/**
 * What a migration may import: the ORM's migrator, the other modules of its folder (a migration's own
 * frozen helpers), the keys lent to it, and the envelope with its seal contexts (primitives whose
 * meaning a stored sealed value already fixes). Anything else is code that may change after the
 * migration shipped, and a database migrated later would be migrated by the new meaning: copy
 * what it needs into the migration instead.
 */
const allowedPackages = new Set(['@mikro-orm/core', '@mikro-orm/migrations']);
const allowedModules = new Set(['src/crypto/envelope.ts', 'src/crypto/seal-contexts.ts']);

const allowed = (file: string, specifier: string) => {
  if (!specifier.startsWith('.')) return allowedPackages.has(specifier) || specifier.startsWith('node:');
  const target = relative(root, resolve(dirname(join(root, file)), specifier));
  return dirname(target) === migrationsDir || allowedModules.has(target);
};

describe('migrations', () => {
  it('import nothing that may change meaning after they shipped', () => {
    const files = readdirSync(join(root, migrationsDir))
      .filter((name) => name.endsWith('.ts'))
      .map((name) => join(migrationsDir, name));
    expect(files.length).toBeGreaterThan(20);
    const imports = files.flatMap((file) =>
      ts
        .preProcessFile(readFileSync(join(root, file), 'utf8'), true, true)
        .importedFiles.map(({ fileName }) => ({ file, specifier: fileName })),
    );
    expect(imports.length).toBeGreaterThan(files.length);
    const refused = imports
      .filter(({ file, specifier }) => !allowed(file, specifier))
      .map(({ file, specifier }) => `${file} → ${specifier}`);
    expect(refused, 'copy what the migration needs into src/db/migrations/').toEqual([]);
  });
});

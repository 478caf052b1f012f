import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));
const productionRoots = ['src', 'workflows', 'activities', 'worker'];

/**
 * The isolate's own scripts (src/sandbox/*.js: Node's globals, URL and the bootstrap as the user's
 * code sees them) are one unit each, read into the isolate whole; docs/architecture.md names them.
 */
const inIsolate = /^src\/sandbox\/[^/]+\.js$/;
const maxLines = 400;
const maxFilesAtRoot = 40;

const sources = (dir: string) =>
  readdirSync(join(root, dir), { recursive: true, encoding: 'utf8' })
    .filter((file) => /\.(ts|js)$/.test(file) && !file.endsWith('.d.ts'))
    .map((file) => join(dir, file));

const folders = (dir: string): string[] =>
  readdirSync(join(root, dir), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .flatMap((entry) => [join(dir, entry.name), ...folders(join(dir, entry.name))]);

describe('the house stays readable', () => {
  it(`keeps every production module under ${maxLines} lines, but the isolate's own scripts`, () => {
    const long = productionRoots
      .flatMap(sources)
      .filter((path) => !inIsolate.test(path))
      .map((path) => ({ path, lines: readFileSync(join(root, path), 'utf8').split('\n').length - 1 }))
      .filter(({ lines }) => lines > maxLines);
    expect(long).toEqual([]);
  });

  it(`keeps at most ${maxFilesAtRoot} files at the root of any folder, migrations aside`, () => {
    const crowded = [...productionRoots, ...productionRoots.flatMap(folders)]
      .filter((dir) => !dir.endsWith(join('db', 'migrations')))
      .map((dir) => ({
        dir,
        files: readdirSync(join(root, dir), { withFileTypes: true }).filter((e) => e.isFile()).length,
      }))
      .filter(({ files }) => files > maxFilesAtRoot);
    expect(crowded).toEqual([]);
  });
});

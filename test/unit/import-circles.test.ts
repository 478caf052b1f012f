import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importCircles, importsOf } from '../../scripts/check-import-cycles.ts';

const graphOf = (edges: Record<string, string[]>) => new Map(Object.entries(edges));

describe('the import circle check', () => {
  it('finds a circle of two modules and one of three, and nothing in a layered graph', () => {
    const circles = importCircles(graphOf({ a: ['b'], b: ['a'], c: ['d'], d: ['e'], e: ['c'], f: ['a', 'c'], g: [] }));
    expect(circles).toEqual(
      expect.arrayContaining([
        ['a', 'b'],
        ['c', 'd', 'e'],
      ]),
    );
    expect(circles).toHaveLength(2);
    expect(importCircles(graphOf({ routes: ['service'], service: ['entity'], entity: [] }))).toEqual([]);
  });

  it('reads type-only imports and re-exports as imports, so a circle of types is found', () => {
    const dir = mkdtempSync(join(tmpdir(), 'circles-'));
    writeFileSync(join(dir, 'a.ts'), "import type { B } from './b.ts';\nexport type A = B;\n");
    writeFileSync(join(dir, 'b.ts'), "export { type A as B } from './a.ts';\n");
    const graph = new Map(['a.ts', 'b.ts'].map((name) => [join(dir, name), importsOf(join(dir, name))]));
    expect(importCircles(graph)).toEqual([[join(dir, 'a.ts'), join(dir, 'b.ts')]]);
  });
});

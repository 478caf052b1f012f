/**
 * Fails when an import runs back up the layers of docs/architecture.md ("The layers"), beyond the
 * few named there. Each production module belongs to the first layer whose pattern matches its
 * path; a module may import its own layer or any below it. Type-only imports count: a type ties
 * two modules as surely as a value.
 */
import { readdirSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { importsOf } from './check-import-cycles.ts';

const root = resolve(import.meta.dirname, '..');

/** Top to bottom. */
export const layers: { name: string; paths: RegExp[] }[] = [
  { name: 'cli', paths: [/^src\/cli\//] },
  { name: 'stack', paths: [/^src\/stack\//] },
  {
    name: 'composition',
    paths: [/^src\/app\//, /^worker\//, /^src\/(services\.factory|runtime|db)\.ts$/, /^src\/db\/migrations\//],
  },
  { name: 'workflows', paths: [/^workflows\//] },
  { name: 'activities', paths: [/^activities\//] },
  { name: 'routes', paths: [/\.routes\.ts$/] },
  { name: 'services', paths: [/\.service\.ts$/, /^src\/services\.ts$/] },
  { name: 'control', paths: [/^src\/recovery\//, /\/(triggers|trigger-control|manual-runs)\.ts$/] },
  { name: 'views', paths: [/\.view\.ts$/] },
  { name: 'http', paths: [/^src\/api\//] },
  { name: 'automations', paths: [/^src\/automations\//] },
  { name: 'functions', paths: [/^src\/functions\//] },
  { name: 'sandbox', paths: [/^src\/sandbox\//] },
  { name: 'codec', paths: [/^src\/codec\//] },
  { name: 'secrets', paths: [/^src\/secrets\//] },
  { name: 'auth', paths: [/^src\/auth\//, /^src\/account\//] },
  { name: 'chain', paths: [/^src\/chain\//] },
  { name: 'foundation', paths: [/^src\//] },
];

export function layerOf(path: string): number {
  const index = layers.findIndex(({ paths }) => paths.some((pattern) => pattern.test(path)));
  if (index < 0) throw new Error(`${path} belongs to no layer`);
  return index;
}

function sources(dir: string): string[] {
  return readdirSync(join(root, dir), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts'))
    .map((file) => join(dir, file));
}

export function upwardImports(): string[] {
  const found: string[] = [];
  for (const file of ['src', 'workflows', 'activities', 'worker'].flatMap(sources)) {
    for (const target of importsOf(join(root, file)).map((path) => relative(root, path))) {
      if (!target.endsWith('.ts') || target.startsWith('node_modules')) continue;
      if (layerOf(target) < layerOf(file)) {
        found.push(`${file} (${layers[layerOf(file)]!.name}) → ${target} (${layers[layerOf(target)]!.name})`);
      }
    }
  }
  return found;
}

if (import.meta.main) {
  const found = upwardImports();
  for (const line of found) console.log(line);
  console.log(found.length);
}

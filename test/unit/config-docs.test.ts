import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { variables } from '../../src/config.ts';

const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');

/** The README's configuration table: each row's variables (first column) and default (second). */
function readmeRows(): { names: string[]; fallback: string }[] {
  const section = read('README.md').split('## Configuration')[1]!.split('\n## ')[0]!;
  return section
    .split('\n')
    .filter((line) => /^\| `/.test(line))
    .map((line) => {
      const [names, fallback] = line
        .split('|')
        .slice(1, 3)
        .map((cell) => cell.trim());
      return { names: [...names!.matchAll(/`([^`]+)`/g)].map((match) => match[1]!), fallback: fallback! };
    });
}

/** The default a variable's schema gives when unset, before any transform; undefined for none. */
function schemaDefault(schema: unknown): string | number | undefined {
  const def = (schema as { _zod: { def: { type: string; defaultValue?: string | number; in?: unknown } } })._zod.def;
  if (def.type === 'default') return def.defaultValue;
  return def.type === 'pipe' ? schemaDefault(def.in) : undefined;
}

/** Temporal's own variables, read by its SDK's reader rather than named in the schema. */
const temporalOwn = ['TEMPORAL_API_KEY', 'TEMPORAL_TLS*'];
/** Named in the docs but read by no process: a test's knob, or compose's own value. */
const notSettings = ['NEOFLOW_FUZZ_SEED', 'NEOFLOW_NEO_GO', 'NEOFLOW_UI_CODEC_CAPABILITY'];

describe('the configuration, said once in src/config.ts', () => {
  it("the README's table lists exactly the variables the schema reads, each with the schema's default", () => {
    const rows = readmeRows();
    const listed = rows.flatMap((row) => row.names).filter((name) => !temporalOwn.includes(name));
    expect(listed.toSorted()).toEqual(Object.keys(variables).toSorted());
    for (const { names, fallback } of rows.filter((row) => row.names[0]! in variables)) {
      const fallbackOf = schemaDefault(variables[names[0] as keyof typeof variables]);
      if (fallbackOf !== undefined && fallbackOf !== '') expect(fallback, names[0]).toBe(`\`${fallbackOf}\``);
    }
  });

  it("each default the docs give beside a variable, `NAME` (default N), is the schema's", () => {
    const documents = ['README.md', 'docs/api.md', 'docs/deployment.md', 'docs/functions.md', 'docs/security.md'];
    const stated = documents.flatMap((path) =>
      [...read(path).matchAll(/`([A-Z_]+)`,? \((?:default )?(\d[\d,]*)/g)].map((match) => ({
        path,
        name: match[1]!,
        value: Number(match[2]!.replaceAll(',', '')),
      })),
    );
    expect(stated.length).toBeGreaterThan(10);
    const wrong = stated.filter(
      ({ name, value }) => name in variables && schemaDefault(variables[name as keyof typeof variables]) !== value,
    );
    expect(wrong).toEqual([]);
  });

  it('every NEOFLOW_ variable the docs and the env example name is one the schema reads', () => {
    const documents = ['README.md', '.env.example', 'docker-compose.yml', 'docs/deployment.md', 'docs/security.md'];
    const named = new Set(
      documents.flatMap((path) => [...read(path).matchAll(/\bNEOFLOW_[A-Z0-9_]+/g)].map((m) => m[0])),
    );
    const unknown = [...named].filter((name) => !(name in variables) && !notSettings.includes(name));
    expect(unknown).toEqual([]);
  });
});

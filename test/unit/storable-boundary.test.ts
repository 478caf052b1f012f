import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

// The storable boundary (src/db/storable.ts) holds only if no write goes around it: these read
// the sources, so that a new statement or column that would bypass it fails here.
const sources = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'migrations' ? [] : sources(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });

const writesRows = /\binsert into\b|\bupdate "/i;
// Serialized for a seal or a hash, never for a column: not what the boundary is about.
const sealedOrHashed = /(?:seal|\.update)\(JSON\.stringify\(/g;

describe('the storable boundary', () => {
  it('is the only way a module that writes rows serializes JSON: jsonbParam, never JSON.stringify', () => {
    const bypassing = sources('src').filter((path) => {
      const text = readFileSync(path, 'utf8');
      return writesRows.test(text) && text.replace(sealedOrHashed, '').includes('JSON.stringify(');
    });
    expect(bypassing).toEqual([]);
  });

  it('finds the modules that write rows where every statement lives: the *.sql.ts homes', () => {
    const writing = sources('src').filter((path) => writesRows.test(readFileSync(path, 'utf8')));
    expect(writing.length).toBeGreaterThan(0);
    expect(writing.filter((path) => !path.endsWith('.sql.ts'))).toEqual([]);
  });

  it("types every jsonb column of a run's record (executions, runs, notifications) StorableJson", () => {
    const entities = [
      'src/functions/execution.entity.ts',
      'src/automations/model/run.entity.ts',
      'src/automations/notifications/notification.entity.ts',
    ];
    for (const path of entities) expect(readFileSync(path, 'utf8'), path).not.toMatch(/\bp\.json\b/);
  });
});

import { createHash } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { FunctionDef } from './function.entity.ts';
import { FunctionVersion } from './function-version.entity.ts';
import { nextVersion } from './function-version.sql.ts';
import { settingsOf } from './versioned-fields.ts';

/**
 * Records what `fn` runs now as its next version, made by the API key `keyId`, and makes it
 * current (flushed with `fn`). The caller holds the function's row locked, or has just created it
 * (`first`), so two changes never take one number. The next number is the highest made plus one:
 * a promote moves the current version back, never what comes next.
 */
export async function addVersion(em: EntityManager, fn: FunctionDef, keyId: string | null, first = false) {
  const version = first ? 1 : await nextVersion(em, fn.id);
  em.create(FunctionVersion, {
    function: fn,
    version,
    code: fn.code,
    codeSha256: createHash('sha256').update(fn.code, 'utf8').digest('hex'),
    settings: settingsOf(fn),
    keyId,
  });
  fn.version = version;
}

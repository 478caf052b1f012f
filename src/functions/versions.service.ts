import { LockMode, type EntityManager } from '@mikro-orm/postgresql';
import { findOwned } from '../db/owned.ts';
import { AppError } from '../errors.ts';
import { FunctionDef } from './function.entity.ts';
import { FunctionVersion } from './function-version.entity.ts';
import { functionNotFound } from './functions.service.ts';
import type { ListVersions } from './versions.schemas.ts';
import { storedSettings } from './versioned-fields.ts';
import { audit } from '../audit/audit.ts';
import type { Actor } from '../audit/actor.ts';
import { valuesSummary } from '../audit/summary.ts';

const versionNotFound = (version: number) =>
  new AppError('version_not_found', `The function has no version ${version}.`);

/** The function's versions, newest first, without their code. */
export function listVersions(em: EntityManager, fn: FunctionDef, page: ListVersions) {
  return em.findAndCount(
    FunctionVersion,
    { function: fn.id },
    { orderBy: { version: 'desc' }, limit: page.limit, offset: page.offset },
  );
}

/** One version of the function, with its code when asked for. */
export async function getVersion(em: EntityManager, fn: FunctionDef, version: number, withCode: boolean) {
  const found = await em.findOne(FunctionVersion, { function: fn.id, version }, withCode ? { populate: ['code'] } : {});
  if (!found) throw versionNotFound(version);
  return found;
}

/**
 * Makes version `version` the one the function runs (a rollback is a promote of an older one):
 * its code and settings become the function's again. No version is made, so the next change
 * makes the one after the highest. Promoting the current version changes nothing.
 */
export async function promoteVersion(em: EntityManager, actor: Actor, id: string, version: number) {
  return em.transactional(async (tx) => {
    const fn = await findOwned(tx, FunctionDef, id, actor.accountId, functionNotFound, LockMode.PESSIMISTIC_WRITE);
    const promoted = await getVersion(tx, fn, version, true);
    if (fn.version !== version) {
      Object.assign(fn, storedSettings(promoted.settings), { code: promoted.code, version, updatedAt: new Date() });
    }
    fn.promotedVersion = version;
    audit(tx, actor, {
      action: 'function.promote',
      resource: { type: 'function', id: fn.id },
      summary: valuesSummary({ version }),
    });
    return fn;
  });
}

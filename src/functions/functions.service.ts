import { LockMode, type EntityManager } from '@mikro-orm/postgresql';
import { flushUniqueName } from '../db/flush-unique-name.ts';
import { findOwned } from '../db/owned.ts';
import { AppError } from '../errors.ts';
import { Secret } from '../secrets/secret.entity.ts';
import { addVersion } from './add-version.ts';
import { committedCode, isFunctionLimitReached, limitFunctions } from './function.sql.ts';
import { pruneVersions } from './function-version.sql.ts';
import { assertValidCode } from './code.ts';
import { cancelRunning, type Invoker } from './executions.service.ts';
import { FunctionDef, type Language } from './function.entity.ts';
import type { CreateFunction, ListFunctions, UpdateFunction } from './functions.schemas.ts';
import { changesVersion } from './versioned-fields.ts';
import { audit } from '../audit/audit.ts';
import type { Actor } from '../audit/actor.ts';
import { changeSummary } from '../audit/summary.ts';

export const functionNotFound = () => new AppError('function_not_found', 'Function not found.');

/** The audit log shows a function's name, runtime, timeout and version; never its code or environment. */
const functionChange = (fn: FunctionDef, input: Record<string, unknown>) => ({
  resource: { type: 'function' as const, id: fn.id },
  summary: changeSummary(input, ['name', 'runtime', 'timeout', 'status'], { version: fn.version }),
});

/** What an account may keep (`quotas` of the configuration). */
interface FunctionLimits {
  functionsPerAccount: number;
  versionsPerFunction: number;
}

/**
 * An account at its number of functions creates no more until it deletes some: its insert is
 * refused by the count PostgreSQL keeps (migration 0027), which racing creates take in turn.
 */
const functionLimitReached = (limit: number) =>
  new AppError(
    'function_limit_reached',
    `This account has ${limit} functions, the most it may have; delete one to create another.`,
    { limit },
  );

/** A new function, with its version 1, if the account has room for it. */
export async function createFunction(
  em: EntityManager,
  actor: Actor,
  input: CreateFunction,
  limits: Pick<FunctionLimits, 'functionsPerAccount'>,
) {
  const { accountId } = actor;
  await assertValidCode(input.code, input.runtime, accountId);
  await assertSecretsExist(em, accountId, input.secrets);
  try {
    return await em.transactional(async (tx) => {
      await limitFunctions(tx, limits.functionsPerAccount);
      const fn = tx.create(FunctionDef, {
        account: accountId,
        ...input,
        description: input.description ?? null,
        status: 'active',
      });
      await addVersion(tx, fn, actor.keyId, true);
      await flushUniqueName(tx, nameTaken(input.name));
      audit(tx, actor, { action: 'function.create', ...functionChange(fn, input) });
      return fn;
    });
  } catch (error) {
    if (isFunctionLimitReached(error)) throw functionLimitReached(limits.functionsPerAccount);
    throw error;
  }
}

export async function listFunctions(em: EntityManager, accountId: string, query: ListFunctions) {
  const direction = query.order ?? (query.sort === 'name' ? 'asc' : 'desc');
  const where = {
    account: accountId,
    ...(query.runtime ? { runtime: query.runtime } : {}),
    ...(query.name ? { name: query.name } : {}),
    ...(query.tag ? { tags: { $contains: [query.tag] } } : {}),
  };
  return em.findAndCount(FunctionDef, where, {
    orderBy: { [query.sort]: direction, id: direction },
    limit: query.limit,
    offset: query.offset,
  });
}

export function getFunction(em: EntityManager, accountId: string, id: string) {
  return findOwned(em, FunctionDef, id, accountId, functionNotFound);
}

/** A function as read with the caller's key (its row as JSON, null when the account has none). */
export function functionRead(em: EntityManager, row: Record<string, unknown> | null): FunctionDef {
  if (!row) throw functionNotFound();
  return em.map(FunctionDef, row);
}

/**
 * A partial update. A change of what the function runs (versioned-fields.ts) makes its next
 * version, under the function's row lock: one change at a time takes each number. Code is parsed
 * only when the code or the runtime it is read as changes, and before the lock is taken (stripping
 * TypeScript takes a thread up to its deadline): the update then applies only if the row still
 * holds what was checked, and checks again otherwise.
 */
export async function updateFunction(
  em: EntityManager,
  author: Actor,
  id: string,
  input: UpdateFunction,
  limits: Pick<FunctionLimits, 'versionsPerFunction'>,
) {
  if (input.secrets !== undefined) await assertSecretsExist(em, author.accountId, input.secrets);
  for (let attempt = 1; ; attempt += 1) {
    const checked = await checkCodeChange(em, author.accountId, id, input);
    const updated = await em.transactional(async (tx) => {
      const fn = await findOwned(tx, FunctionDef, id, author.accountId, functionNotFound, LockMode.PESSIMISTIC_WRITE);
      if (!sameCode(codeChangeOf(fn, input), checked)) return undefined;
      const versioned = changesVersion(fn, input);
      Object.assign(fn, input);
      fn.updatedAt = new Date();
      if (versioned) await addVersion(tx, fn, author.keyId);
      await flushUniqueName(tx, nameTaken(input.name ?? fn.name));
      if (versioned) await pruneVersions(tx, fn, limits.versionsPerFunction);
      audit(tx, author, { action: 'function.update', ...functionChange(fn, input) });
      return fn;
    });
    if (updated) return updated;
    if (attempt === maxCheckAttempts) {
      throw new AppError('conflict', 'The function kept changing while this update was checked: retry it.');
    }
  }
}

/** Updates racing on the code of one function: an update checks again at most this many times. */
const maxCheckAttempts = 3;

/** The code and runtime an update leaves the function with, when it changes either; else null. */
type CodeChange = { code: string; runtime: Language } | null;

function codeChangeOf(fn: Pick<FunctionDef, 'code' | 'runtime'>, input: UpdateFunction): CodeChange {
  const code = input.code ?? fn.code;
  const runtime = input.runtime ?? fn.runtime;
  return code === fn.code && runtime === fn.runtime ? null : { code, runtime };
}

const sameCode = (a: CodeChange, b: CodeChange) => a?.code === b?.code && a?.runtime === b?.runtime;

/**
 * Reads the function as it stands, unlocked, and checks the code the update would leave it with
 * if that differs from its own (a change of runtime alone re-reads the stored code: JavaScript may
 * not parse as TypeScript). Answers what was checked.
 */
async function checkCodeChange(em: EntityManager, accountId: string, id: string, input: UpdateFunction) {
  if (input.code === undefined && input.runtime === undefined) return null;
  const row = await committedCode(em, accountId, id);
  if (!row) throw functionNotFound();
  const change = codeChangeOf(row, input);
  if (change) await assertValidCode(change.code, change.runtime, accountId);
  return change;
}

/** The function and its executions go; running ones are cancelled first. */
export async function deleteFunction(em: EntityManager, invoker: Invoker, actor: Actor, id: string) {
  const fn = await getFunction(em, actor.accountId, id);
  await cancelRunning(em, invoker, fn);
  audit(em, actor, { action: 'function.delete', ...functionChange(fn, {}) });
  await em.remove(fn).flush();
}

/** Every granted name must be one of the account's secrets when it is granted. */
async function assertSecretsExist(em: EntityManager, accountId: string, names: readonly string[]) {
  if (names.length === 0) return;
  const found = await em.find(Secret, { account: accountId, name: { $in: [...names] } }, { fields: ['name'] });
  const known = new Set(found.map((secret) => secret.name));
  const unknown = names.find((name) => !known.has(name));
  if (unknown !== undefined) {
    throw new AppError('invalid_request', `No secret named "${unknown}" exists in this account.`, {
      field: 'secrets',
    });
  }
}

const nameTaken = (name: string) => `A function named "${name}" already exists.`;

import { LockMode, type EntityManager } from '@mikro-orm/postgresql';
import { flushUniqueName } from '../db/flush-unique-name.ts';
import { findOwned } from '../db/owned.ts';
import { AppError } from '../errors.ts';
import { Secret } from '../secrets/secret.entity.ts';
import { addVersion } from './add-version.ts';
import { assertValidCode } from './code.ts';
import { cancelRunning, type Invoker } from './executions.service.ts';
import { FunctionDef } from './function.entity.ts';
import type { CreateFunction, ListFunctions, UpdateFunction } from './functions.schemas.ts';
import { changesVersion } from './versioned-fields.ts';

export const functionNotFound = () => new AppError('function_not_found', 'Function not found.');

/** Who changes a function: the account, and the key that signs the versions it makes. */
interface Author {
  accountId: string;
  keyId: string;
}

/** A new function, with its version 1. */
export async function createFunction(em: EntityManager, { accountId, keyId }: Author, input: CreateFunction) {
  assertValidCode(input.code, input.runtime);
  await assertSecretsExist(em, accountId, input.secrets);
  return em.transactional(async (tx) => {
    const fn = tx.create(FunctionDef, {
      account: accountId,
      ...input,
      description: input.description ?? null,
      status: 'active',
    });
    await addVersion(tx, fn, keyId, true);
    await flushUniqueName(tx, nameTaken(input.name));
    return fn;
  });
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
 * version, under the function's row lock: one change at a time takes each number.
 */
export async function updateFunction(em: EntityManager, author: Author, id: string, input: UpdateFunction) {
  if (input.secrets !== undefined) await assertSecretsExist(em, author.accountId, input.secrets);
  return em.transactional(async (tx) => {
    const fn = await findOwned(tx, FunctionDef, id, author.accountId, functionNotFound, LockMode.PESSIMISTIC_WRITE);
    // A change of runtime alone re-reads the stored code: JavaScript may not parse as TypeScript.
    if (input.code !== undefined || input.runtime !== undefined) {
      assertValidCode(input.code ?? fn.code, input.runtime ?? fn.runtime);
    }
    const versioned = changesVersion(fn, input);
    Object.assign(fn, input);
    fn.updatedAt = new Date();
    if (versioned) await addVersion(tx, fn, author.keyId);
    await flushUniqueName(tx, nameTaken(input.name ?? fn.name));
    return fn;
  });
}

/** The function and its executions go; running ones are cancelled first. */
export async function deleteFunction(em: EntityManager, invoker: Invoker, accountId: string, id: string) {
  const fn = await getFunction(em, accountId, id);
  await cancelRunning(em, invoker, fn);
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

import type { EntityManager } from '@mikro-orm/postgresql';
import { flushUniqueName } from '../db/flush-unique-name.ts';
import { findOwned } from '../db/owned.ts';
import { AppError } from '../errors.ts';
import { Secret } from '../secrets/secret.entity.ts';
import { assertValidCode } from './code.ts';
import { cancelRunning, type Invoker } from './executions.service.ts';
import { FunctionDef } from './function.entity.ts';
import type { CreateFunction, ListFunctions, UpdateFunction } from './functions.schemas.ts';

export const functionNotFound = () => new AppError('function_not_found', 'Function not found.');

export async function createFunction(em: EntityManager, accountId: string, input: CreateFunction) {
  assertValidCode(input.code, input.runtime);
  await assertSecretsExist(em, accountId, input.secrets);
  const fn = em.create(FunctionDef, {
    account: accountId,
    ...input,
    description: input.description ?? null,
    status: 'active',
  });
  await flushUniqueName(em, nameTaken(input.name));
  return fn;
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

export async function updateFunction(em: EntityManager, accountId: string, id: string, input: UpdateFunction) {
  const fn = await getFunction(em, accountId, id);
  // A change of runtime alone re-reads the stored code: JavaScript may not parse as TypeScript.
  if (input.code !== undefined || input.runtime !== undefined) {
    assertValidCode(input.code ?? fn.code, input.runtime ?? fn.runtime);
  }
  if (input.secrets !== undefined) await assertSecretsExist(em, accountId, input.secrets);
  Object.assign(fn, input);
  fn.updatedAt = new Date();
  await flushUniqueName(em, nameTaken(input.name ?? fn.name));
  return fn;
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

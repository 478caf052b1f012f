import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError } from '../errors.ts';
import { defaultSignerName, signerNamed } from '../signers/signer.sql.ts';
import { sendsTransactions, type Action } from './model/action.schemas.ts';

/**
 * The signer an action signs with, by id: the one `action.signer` names (a name or an id), else
 * the account's `default`; null for an action that sends nothing, and for an account without a
 * default signer (made before signers existed) whose action names none: its runs end `NoSigner`.
 */
export async function signerIdOf(em: EntityManager, accountId: string, action: Action): Promise<string | null> {
  const named = 'signer' in action ? action.signer : undefined;
  if (!sendsTransactions(action)) {
    if (named === undefined) return null;
    throw new AppError('invalid_request', '"action.signer" applies only to an action that sends transactions.', {
      field: 'action.signer',
    });
  }
  const signer = await signerNamed(em, accountId, named ?? defaultSignerName);
  if (signer) return signer.id;
  if (named === undefined) return null;
  throw new AppError('invalid_request', `"action.signer" names no signer of this account: "${named}".`, {
    field: 'action.signer',
  });
}

/** The action as stored: its signer is the automation's `signerId`, so a signer named by name or id is stored once. */
export function storedAction(action: Action): Action {
  if (!('signer' in action)) return action;
  const stored = { ...action };
  delete stored.signer;
  return stored;
}

/** What an update of the action stores: the action, its function, and its signer. */
export const storedActionOf = async (em: EntityManager, accountId: string, action: Action) => ({
  action: storedAction(action),
  functionId: action.type === 'function' ? action.functionId : null,
  signerId: await signerIdOf(em, accountId, action),
});

/** The action as answered: with the id of the signer it signs with. */
export const shownAction = (action: Action, signerId: string | null | undefined): Action =>
  signerId && action.type !== 'webhook' ? { ...action, signer: signerId } : action;

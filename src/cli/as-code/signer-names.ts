import type { Action } from '../../automations/model/action.schemas.ts';
import type { RemoteSigner } from './account-state.ts';

/** The signer every account has, and the one an action naming none signs with. */
const defaultName = 'default';

/** The account's signers' names by id. */
export const signerNamesById = (signers: RemoteSigner[]) => new Map(signers.map(({ id, name }) => [id, name]));

/**
 * An action's signer as a file names it: by name (ids differ between accounts), left out when it
 * is `default`, as an action naming none signs with it. An id the account does not know stays as it is.
 */
export function withSignerName<T extends Action | Record<string, unknown>>(
  action: T,
  namesById: Map<string, string>,
): T {
  if (!('signer' in action) || typeof action.signer !== 'string') return action;
  const name = namesById.get(action.signer) ?? action.signer;
  const named: Record<string, unknown> = { ...action };
  if (name === defaultName) delete named.signer;
  else named.signer = name;
  return named as T;
}

/** Whether export writes the signer: every account has its generated `default`, which apply leaves alone. */
export const exported = (signer: RemoteSigner) => !(signer.name === defaultName && signer.type === 'generated');

/**
 * A signer as the file holds it: its type, what names its remote key, its budget; an imported key
 * only as the environment variable apply would read it from (its value is never exported).
 */
export function signerEntry(signer: RemoteSigner, uniqueEnv: (...words: string[]) => { env: string }) {
  return {
    name: signer.name,
    type: signer.type,
    ...(signer.backend ?? {}),
    ...(signer.type === 'import' ? { privateKey: uniqueEnv('NEOFLOW_SIGNER', signer.name) } : {}),
    ...(signer.budget ? { budget: signer.budget } : {}),
  };
}

import type { Trigger } from '../../automations/model/trigger.schemas.ts';
import type { Action } from '../../automations/model/action.schemas.ts';
import type { Budget } from '../../chain/gas-budget.ts';
import type { NotifyRule } from '../../automations/model/notify.schemas.ts';
import type { FunctionFields } from './neoflow-file.ts';
import { expectStatus, listAll, type Api } from '../api-client.ts';

/** A function as the API shows it with its code (GET /v1/functions/{id}?include_code=true). */
export interface RemoteFunction extends FunctionFields {
  id: string;
  name: string;
}

/** An automation as the API lists it: its credentials masked. */
export interface RemoteAutomation {
  id: string;
  name: string;
  network: string;
  status: 'active' | 'inactive' | 'error';
  trigger: Trigger;
  action: Action;
  notify: NotifyRule[];
  budget?: Budget;
  details?: { reason: string; message: string };
}

/** A secret as the API shows it: never its value. */
interface RemoteSecret {
  id: string;
  name: string;
  description: string | null;
}

/** A signer as the API shows it: where its key lives, never key material. */
export interface RemoteSigner {
  id: string;
  name: string;
  type: 'generated' | 'import' | 'aws-kms' | 'pkcs11';
  backend: Record<string, string> | null;
  budget: Budget | null;
}

/** What an account holds, as its key reads it through the API. */
export interface AccountState {
  account: { id: string; name: string };
  secrets: RemoteSecret[];
  /** null when the key may not read them: a key made before signers existed lacks `signers:read`. */
  signers: RemoteSigner[] | null;
  functions: RemoteFunction[];
  automations: RemoteAutomation[];
}

/** Requests in flight at once while reading one resource at a time. */
const parallelReads = 8;

/** The key's account with its secrets, signers, functions (with their code) and automations. */
export async function readAccountState(api: Api): Promise<AccountState> {
  const account = (await expectStatus(api('GET', '/v1/account'), 200, 'GET /v1/account')) as AccountState['account'];
  const [secrets, signers, functions, automations] = await Promise.all([
    readSecrets(api),
    readSigners(api),
    readFunctions(api),
    listAll<RemoteAutomation>(api, '/v1/automations', (body) => body.automations),
  ]);
  return {
    account: { id: account.id, name: account.name },
    secrets,
    signers,
    functions,
    automations: automations.map(withoutHookUrl),
  };
}

/**
 * The account's signers, or null when the key may not read them: export and apply of what such a
 * key could handle before signers existed go on without them, rather than failing on a 403.
 */
async function readSigners(api: Api): Promise<RemoteSigner[] | null> {
  if ((await api('GET', '/v1/signers?limit=1')).status === 403) return null;
  return listAll<RemoteSigner>(api, '/v1/signers', (body) => body.signers);
}

async function readFunctions(api: Api): Promise<RemoteFunction[]> {
  const listed = await listAll<{ id: string }>(api, '/v1/functions?sort=name&order=asc', (body) => body.data);
  return eachInTurn(listed, async ({ id }) => {
    const body = await expectStatus(api('GET', `/v1/functions/${id}?include_code=true`), 200, `GET function ${id}`);
    return body.data as RemoteFunction;
  });
}

async function readSecrets(api: Api): Promise<RemoteSecret[]> {
  const listed = await listAll<{ id: string }>(api, '/v1/secrets', (body) => body.secrets);
  // The list leaves out descriptions: each secret is read for its own.
  return eachInTurn(listed, async ({ id }) => {
    const { name, description } = (await expectStatus(
      api('GET', `/v1/secrets/${id}`),
      200,
      `GET secret ${id}`,
    )) as unknown as RemoteSecret;
    return { id, name, description };
  });
}

/** `read` of every item, a few at a time, in the items' order. */
async function eachInTurn<T, R>(items: T[], read: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = [];
  for (let start = 0; start < items.length; start += parallelReads)
    results.push(...(await Promise.all(items.slice(start, start + parallelReads).map(read))));
  return results;
}

/**
 * A webhook's `url` is the service's, issued to one automation of one deployment: never written
 * to a file nor compared with one (its token is never answered at all).
 */
function withoutHookUrl(automation: RemoteAutomation): RemoteAutomation {
  if (automation.trigger.type !== 'webhook') return automation;
  const trigger = { ...automation.trigger };
  delete trigger.url;
  delete trigger.token;
  return { ...automation, trigger };
}

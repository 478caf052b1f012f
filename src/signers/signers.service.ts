import { ForeignKeyConstraintViolationException, type EntityManager } from '@mikro-orm/postgresql';
import { wallet } from '@cityofzion/neon-js';
import { WorkflowFailedError } from '@temporalio/client';
import { AppError } from '../errors.ts';
import { findOwned } from '../db/owned.ts';
import { flushUniqueName } from '../db/flush-unique-name.ts';
import { newId } from '../ids.ts';
import { audit } from '../audit/audit.ts';
import type { Actor } from '../audit/actor.ts';
import { budgetValues, changeSummary, valuesSummary } from '../audit/summary.ts';
import type { MasterKeys } from '../crypto/envelope.ts';
import type { WorkflowStarter } from '../temporal/workflow-starter.ts';
import type { ProbeSignerInput, ProbeSignerResult, ProbeSignerWorkflow } from '../shared/workflow-signatures.ts';
import { Account } from '../auth/account.entity.ts';
import { addGeneratedSigner, addSealedSigner, openSealedSigner } from './default-signer.ts';
import { Signer } from './signer.entity.ts';
import { automationsNaming, deleteUnnamedSigner, storePublicKey } from './signer.sql.ts';
import { wifOf, type CreateSigner, type RemoteSignerCreate } from './signers.schemas.ts';

/** What creating a signer needs: the database, the master keys a local key is sealed under, and Temporal for a remote key's probe. */
interface SignerDeps {
  em: EntityManager;
  masterKeys: MasterKeys;
  starter: Omit<WorkflowStarter, 'log'>;
}

/** How long a create waits for the worker's probe of a remote key before answering 503. */
const probeTimeout = '15 seconds';

/** When a create answered 503 may be tried again: a backend throttled or restarting is back in seconds. */
const retryAfterSeconds = 5;

const signerNotFound = () => new AppError('not_found', 'Signer not found.');
const nameTaken = (name: string) => `A signer named "${name}" already exists.`;

/**
 * Creates the signer the body describes. A generated or imported key is sealed here; a remote key
 * (AWS KMS, PKCS#11) is never touched by the API process: a worker opens it (workflow
 * `probeSigner`) and answers its public key, from which the address is derived, or why not.
 */
export async function createSigner(deps: SignerDeps, actor: Actor, body: CreateSigner): Promise<Signer> {
  const { em, masterKeys } = deps;
  const { accountId } = actor;
  const account = em.getReference(Account, accountId);
  const budget = body.budget ?? null;
  let created: Signer;
  if (body.type === 'generated') {
    created = addGeneratedSigner(em, masterKeys, account, body.name);
    created.budget = budget;
  } else if (body.type === 'import') {
    created = addSealedSigner(em, masterKeys, account, {
      name: body.name,
      type: 'import',
      wif: wifOf(body.privateKey)!,
    });
    created.budget = budget;
  } else {
    // A name taken is answered before the worker is asked anything.
    if (await em.count(Signer, { account: accountId, name: body.name })) {
      throw new AppError('conflict', nameTaken(body.name), { field: 'name' });
    }
    const id = newId('sgn');
    const backend = backendOf(body);
    const publicKey = await probe(deps.starter, id, { type: body.type, backend } as ProbeSignerInput);
    const scriptHash = wallet.getScriptHashFromPublicKey(publicKey);
    created = em.create(Signer, {
      id,
      account,
      name: body.name,
      type: body.type,
      address: wallet.getAddressFromScriptHash(scriptHash),
      scriptHash: `0x${scriptHash}`,
      publicKey,
      ciphertext: null,
      wrappedKey: null,
      masterKeyId: null,
      backend,
      budget,
    });
  }
  // Its name, type and address; never a key, and of a remote key not even its reference.
  audit(em, actor, {
    action: 'signer.create',
    resource: { type: 'signer', id: created.id },
    summary: changeSummary(body, ['name', 'type'], { address: created.address, ...budgetValues(body.budget) }),
  });
  await flushUniqueName(em, nameTaken(body.name));
  return em.findOneOrFail(Signer, { account: accountId, name: body.name });
}

/** The reference a remote signer's row keeps: only what names the key, never a credential. */
function backendOf(body: RemoteSignerCreate) {
  if (body.type === 'aws-kms') return { keyId: body.keyId, ...(body.region ? { region: body.region } : {}) };
  return {
    ...(body.tokenLabel !== undefined ? { tokenLabel: body.tokenLabel } : { slotLabel: body.slotLabel! }),
    keyLabel: body.keyLabel,
  };
}

/** The worker's probe of a remote key: its compressed public key, or the 400 or 503 that answers the create. */
async function probe(starter: SignerDeps['starter'], signerId: string, input: ProbeSignerInput): Promise<string> {
  let result: ProbeSignerResult;
  try {
    result = await starter.client.workflow.execute<ProbeSignerWorkflow>('probeSigner', {
      workflowId: `signer-probe-${signerId}`,
      taskQueue: starter.taskQueue,
      args: [input],
      workflowExecutionTimeout: probeTimeout,
    });
  } catch (error) {
    // No worker answered in time (none runs, or all are busy): the key may be fine, so try again later.
    if (!(error instanceof WorkflowFailedError)) throw error;
    return unavailable('No worker answered the probe of the key in time.');
  }
  if (result.outcome === 'key') return result.publicKey;
  if (result.outcome === 'refused') {
    throw new AppError('invalid_request', `"${result.field}" ${result.message}`, { field: result.field });
  }
  // The backend's own words may name the operator's endpoint (a refused connection's address): a
  // tenant is told only that it is down now; the worker's probe history keeps the words.
  return unavailable('a worker tried and could not reach it.');
}

function unavailable(message: string): never {
  throw new AppError(
    'signer_unavailable',
    `The key's backend cannot be reached now: ${message}`,
    { retryAfter: retryAfterSeconds },
    { 'Retry-After': String(retryAfterSeconds) },
  );
}

export async function listSigners(em: EntityManager, accountId: string, page: { limit: number; offset: number }) {
  const [signers, total] = await em.findAndCount(
    Signer,
    { account: accountId },
    { orderBy: { createdAt: 'desc', id: 'desc' }, limit: page.limit, offset: page.offset },
  );
  return { signers, total };
}

export function getSigner(em: EntityManager, accountId: string, id: string) {
  return findOwned(em, Signer, id, accountId, signerNotFound);
}

/** Deletes the signer; 409 `signer_in_use` naming the automations that sign with it. */
export async function deleteSigner(em: EntityManager, actor: Actor, id: string) {
  const signer = await getSigner(em, actor.accountId, id);
  const deleted = await em
    .transactional(async (tx) => {
      if (!(await deleteUnnamedSigner(tx, signer.id))) return false;
      audit(tx, actor, {
        action: 'signer.delete',
        resource: { type: 'signer', id: signer.id },
        summary: valuesSummary({ name: signer.name, address: signer.address }),
      });
      return true;
    })
    .catch(namedMeanwhile);
  if (deleted) return;
  const automations = await automationsNaming(em, signer.id);
  throw new AppError(
    'signer_in_use',
    `The signer signs for ${automations.length} automation(s): name another signer in them, or delete them, first.`,
    { automations },
  );
}

/** An automation that named the signer while the delete ran holds it: the delete is refused as for one named before. */
function namedMeanwhile(error: unknown): false {
  if (error instanceof ForeignKeyConstraintViolationException) return false;
  throw error;
}

/**
 * A signer migrated from account_signers learns its public key here, the first time the API shows
 * it: its sealed key is opened once (the API holds the master keys already), and the key stored
 * only where none is yet, so readers at once store the same. Done on read, not at start-up, so
 * that no process opens every account's key at once.
 */
export async function withPublicKey(em: EntityManager, masterKeys: MasterKeys, signer: Signer): Promise<Signer> {
  if (signer.publicKey !== null && signer.publicKey !== undefined) return signer;
  const publicKey = new wallet.Account(openSealedSigner(signer, masterKeys)).publicKey;
  await storePublicKey(em, signer.id, publicKey);
  signer.publicKey = publicKey;
  return signer;
}

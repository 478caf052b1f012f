import type { EntityManager } from '@mikro-orm/postgresql';
import { Account } from './account.entity.ts';
import { ApiKey } from './api-key.entity.ts';
import { generateKey, hashKey, keyHint } from './key-material.ts';
import type { Scope } from './scopes.ts';
import { addSigner, findSigner, type SignerSummary } from '../signers/default-signer.ts';
import { newId } from '../ids.ts';
import { storedRate, type Rate } from '../ratelimit/rate.ts';
import type { MasterKeys } from '../crypto/envelope.ts';
import { audit } from '../audit/audit.ts';
import { cliActor } from '../audit/actor.ts';
import { keyChange } from '../keys/managed-keys.ts';

interface KeySummary {
  id: string;
  hint: string;
  scopes: string[];
  createdAt: Date;
  revokedAt: Date | null;
  rate: Rate | null;
}

export interface CreateKeyOptions {
  /** The key's own rate; without it NEOFLOW_RATE_LIMIT applies. */
  rate?: Rate | undefined;
  /** Runs in the transaction that creates the signer: when it throws, nothing is created. */
  onNewSigner?: ((signer: SignerSummary) => Promise<void>) | undefined;
}

/**
 * Creates a key for the named account, creating the account and its signer on first use (and the
 * signer of an account made before signers existed).
 */
export async function createKey(
  em: EntityManager,
  masters: MasterKeys,
  accountName: string,
  keyScopes: Scope[],
  options: CreateKeyOptions = {},
) {
  return em.transactional(async (tx) => {
    // The id is chosen now, not at flush: the signer's seal is bound to it.
    const account =
      (await tx.findOne(Account, { name: accountName })) ??
      tx.create(Account, { id: newId('acct'), name: accountName });
    const existingSigner = await findSigner(tx, account.id);
    const signer = existingSigner ?? addSigner(tx, masters, account);
    const key = generateKey();
    const record = tx.create(ApiKey, {
      account,
      hash: hashKey(key),
      hint: keyHint(key),
      scopes: keyScopes,
      rateRequests: options.rate?.requests ?? null,
      rateWindowSeconds: options.rate?.windowSeconds ?? null,
    });
    await tx.flush();
    // After the flush that inserted a new account: the event's row refers to it.
    audit(tx, cliActor(account.id), keyChange('key.create', record));
    if (!existingSigner) await options.onNewSigner?.(signer);
    return { key, keyId: record.id, accountId: account.id, signer };
  });
}

export async function listKeys(em: EntityManager, accountName: string): Promise<KeySummary[]> {
  const keys = await em.find(ApiKey, { account: { name: accountName } }, { orderBy: { createdAt: 'desc' } });
  return keys.map((key) => ({
    id: key.id,
    hint: key.hint,
    scopes: key.scopes,
    createdAt: key.createdAt,
    revokedAt: key.revokedAt ?? null,
    rate: rateOf(key),
  }));
}

/** Returns false when no such key exists; revoking twice keeps the first revocation time. */
export async function revokeKey(em: EntityManager, keyId: string): Promise<boolean> {
  const key = await em.findOne(ApiKey, { id: keyId });
  if (!key) return false;
  if (!key.revokedAt) {
    key.revokedAt = new Date();
    audit(em, cliActor(key.account.id), keyChange('key.revoke', key));
  }
  await em.flush();
  return true;
}

function rateOf(key: ApiKey): Rate | null {
  return storedRate(key.rateRequests, key.rateWindowSeconds);
}

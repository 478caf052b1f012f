import type { EntityManager } from '@mikro-orm/postgresql';
import { wallet } from '@cityofzion/neon-js';
import type { Account } from '../auth/account.entity.ts';
import { open, seal, type MasterKeys } from '../crypto/envelope.ts';
import { sealContexts } from '../crypto/seal-contexts.ts';
import { Signer, type SignerType } from './signer.entity.ts';
import { defaultSignerName, defaultSignerOf } from './signer.sql.ts';

/** What anyone may know of a signer: where to send it GAS. */
export interface SignerSummary {
  address: string;
  /** `0x` and the big-endian hex that Neo tools show. */
  scriptHash: string;
}

/**
 * A signer whose key Neoflow holds (generated or imported): the WIF sealed under the current master
 * key and bound to the account (copied into another account's row, it no longer opens); the caller flushes.
 */
export function addSealedSigner(
  em: EntityManager,
  masters: MasterKeys,
  account: Account,
  signer: { name: string; type: Extract<SignerType, 'generated' | 'import'>; wif: string },
): Signer {
  const key = new wallet.Account(signer.wif);
  return em.create(Signer, {
    account,
    name: signer.name,
    type: signer.type,
    address: key.address,
    scriptHash: `0x${key.scriptHash}`,
    publicKey: key.publicKey,
    ...seal(key.WIF, sealContexts.signer(account.id), masters),
  });
}

/** A fresh generated key pair, named `name`, sealed under the current master key; the caller flushes. */
export const addGeneratedSigner = (em: EntityManager, masters: MasterKeys, account: Account, name: string) =>
  addSealedSigner(em, masters, account, { name, type: 'generated', wif: wallet.generatePrivateKey() });

/** Gives a new `account` its `default` signer, a generated key; the caller flushes. */
export function addSigner(em: EntityManager, masters: MasterKeys, account: Account): SignerSummary {
  return summaryOf(addGeneratedSigner(em, masters, account, defaultSignerName));
}

/** The account's default signer; null for an account made before signers existed, until its next key. */
export async function findSigner(em: EntityManager, accountId: string): Promise<SignerSummary | null> {
  const signer = await defaultSignerOf(em, accountId);
  return signer && summaryOf(signer);
}

/** A sealed signer's WIF, to sign with; it stays in memory only. */
export function openSealedSigner(signer: Signer, masters: MasterKeys): string {
  const { ciphertext, wrappedKey, masterKeyId } = signer;
  if (!ciphertext || !wrappedKey || !masterKeyId) throw new Error(`Signer ${signer.id} holds no sealed key.`);
  return open({ ciphertext, wrappedKey, masterKeyId }, sealContexts.signer(signer.account.id), masters);
}

/** The default signer's WIF, to sign the account's contract calls; it stays in memory only. */
export async function openSigner(em: EntityManager, masters: MasterKeys, accountId: string): Promise<string> {
  const signer = await defaultSignerOf(em, accountId);
  if (!signer) throw new Error(`Account ${accountId} has no default signer.`);
  return openSealedSigner(signer, masters);
}

function summaryOf(signer: Signer): SignerSummary {
  return { address: signer.address, scriptHash: signer.scriptHash };
}

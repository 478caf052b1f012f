import type { EntityManager } from '@mikro-orm/postgresql';
import { wallet } from '@cityofzion/neon-js';
import type { Account } from './account.entity.ts';
import { open, seal, type MasterKeys } from '../crypto/envelope.ts';
import { sealContexts } from '../crypto/seal-contexts.ts';
import { AccountSigner } from './signer.entity.ts';

/** What anyone may know of a signer: where to send it GAS. */
export interface SignerSummary {
  address: string;
  /** `0x` and the big-endian hex that Neo tools show. */
  scriptHash: string;
}

/** Binds a sealed key to its account: copied into another account's row, it no longer opens. */

/** Gives `account` a fresh key pair, sealed under the current master key; the caller flushes. */
export function addSigner(em: EntityManager, masters: MasterKeys, account: Account): SignerSummary {
  const key = new wallet.Account(wallet.generatePrivateKey());
  const signer = em.create(AccountSigner, {
    account,
    address: key.address,
    scriptHash: `0x${key.scriptHash}`,
    ...seal(key.WIF, sealContexts.signer(account.id), masters),
  });
  return summaryOf(signer);
}

/** The account's signer; null for an account made before signers existed, until its next key. */
export async function findSigner(em: EntityManager, accountId: string): Promise<SignerSummary | null> {
  const signer = await em.findOne(AccountSigner, { account: accountId });
  return signer && summaryOf(signer);
}

/** The signer's WIF, to sign the account's contract calls; it stays in memory only. */
export async function openSigner(em: EntityManager, masters: MasterKeys, accountId: string): Promise<string> {
  const signer = await em.findOneOrFail(AccountSigner, { account: accountId });
  return open(signer, sealContexts.signer(accountId), masters);
}

function summaryOf(signer: AccountSigner): SignerSummary {
  return { address: signer.address, scriptHash: signer.scriptHash };
}

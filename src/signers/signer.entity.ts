import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { Account } from '../auth/account.entity.ts';
import { createdAt, prefixedId } from '../db/resource-properties.ts';
import type { Budget } from '../chain/gas-budget.ts';

/** Where a signer's key lives: sealed by Neoflow (generated or imported), in an AWS KMS, in a PKCS#11 token. */
export const signerTypes = ['generated', 'import', 'aws-kms', 'pkcs11'] as const;
export type SignerType = (typeof signerTypes)[number];

/** Which KMS key signs: its id or ARN, and its region when not the worker's AWS_REGION. */
export interface AwsKmsBackend {
  keyId: string;
  region?: string;
}

/** Which token key signs: the token by its label or its slot's, the key by its label. */
export interface Pkcs11Backend {
  tokenLabel?: string;
  slotLabel?: string;
  keyLabel: string;
}

/**
 * One of an account's Neo N3 keys (migration 0032): the address in clear; a generated or imported
 * key's WIF sealed under `sealContexts.signer(accountId)`; a remote key only by its reference.
 */
export const Signer = defineEntity({
  name: 'Signer',
  tableName: 'signers',
  properties: {
    id: prefixedId('sgn'),
    account: () => p.manyToOne(Account).deleteRule('cascade'),
    /** Unique per account; automations name their signer by it or by id. */
    name: p.string().length(64),
    type: p.string().length(16).$type<SignerType>(),
    address: p.string().length(34),
    /** `0x` and the big-endian hex that Neo tools show. */
    scriptHash: p.string().length(42),
    /** Compressed, hex; null only for a generated signer migrated from account_signers until backfilled. */
    publicKey: p.string().length(66).nullable(),
    ciphertext: p.blob().nullable(),
    wrappedKey: p.blob().nullable(),
    masterKeyId: p.string().length(16).nullable(),
    backend: p.json<AwsKmsBackend | Pkcs11Backend>().nullable(),
    /** Its own daily/total GAS budget per network; null: the account's default holds. */
    budget: p.json<Budget>().nullable(),
    createdAt: createdAt(),
  },
});

export type Signer = InferEntity<typeof Signer>;

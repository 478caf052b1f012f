import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { Account } from './account.entity.ts';
import { createdAt } from '../db/resource-properties.ts';

/** An account's Neo N3 key pair: the address in clear, the WIF sealed like a secret (envelope.ts). */
export const AccountSigner = defineEntity({
  name: 'AccountSigner',
  tableName: 'account_signers',
  properties: {
    account: () => p.oneToOne(Account).primary().owner().deleteRule('cascade'),
    address: p.string().length(34).unique(),
    /** `0x` and the big-endian hex that Neo tools show. */
    scriptHash: p.string().length(42),
    ciphertext: p.blob(),
    wrappedKey: p.blob(),
    masterKeyId: p.string().length(16),
    createdAt: createdAt(),
  },
});

export type AccountSigner = InferEntity<typeof AccountSigner>;

import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { Account } from '../auth/account.entity.ts';
import { createdAt, prefixedId, timestamps } from '../db/resource-properties.ts';

/** A named secret's metadata; its values live in SecretVersion, newest wins. */
export const Secret = defineEntity({
  name: 'Secret',
  tableName: 'secrets',
  uniques: [{ properties: ['account', 'name'] }],
  properties: {
    id: prefixedId('sec'),
    account: () => p.manyToOne(Account).deleteRule('cascade'),
    name: p.string().length(128),
    description: p.text().nullable(),
    version: p.integer(),
    ...timestamps(),
  },
});

export type Secret = InferEntity<typeof Secret>;

/** One value of a secret, sealed under its own data key (see envelope.ts). */
export const SecretVersion = defineEntity({
  name: 'SecretVersion',
  tableName: 'secret_versions',
  uniques: [{ properties: ['secret', 'version'] }],
  properties: {
    id: p.bigint('number').primary().autoincrement(),
    secret: () => p.manyToOne(Secret).deleteRule('cascade'),
    version: p.integer(),
    ciphertext: p.blob(),
    wrappedKey: p.blob(),
    masterKeyId: p.string().length(16),
    createdAt: createdAt(),
  },
});

export type SecretVersion = InferEntity<typeof SecretVersion>;

import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { TextArrayType } from '../db/text-array.ts';
import { createdAt, prefixedId } from '../db/resource-properties.ts';
import { Account } from './account.entity.ts';

/** An API key as stored: only the SHA-256 of the secret, never the secret itself. */
export const ApiKey = defineEntity({
  name: 'ApiKey',
  tableName: 'api_keys',
  properties: {
    id: prefixedId('key'),
    account: () => p.manyToOne(Account).deleteRule('cascade'),
    hash: p.string().length(64).unique(),
    /** The first characters of the key, so an owner can tell keys apart in `keys list`. */
    hint: p.string(),
    scopes: p.type(TextArrayType),
    /** This key's own rate (`--rate`); both null means NEOFLOW_RATE_LIMIT applies. */
    rateRequests: p.integer().nullable(),
    rateWindowSeconds: p.integer().nullable(),
    createdAt: createdAt(),
    revokedAt: p.datetime().nullable(),
  },
});

export type ApiKey = InferEntity<typeof ApiKey>;

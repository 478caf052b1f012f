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
    /** What its owner calls it; null for a key the CLI made without `--name`. */
    name: p.string().length(64).nullable(),
    scopes: p.type(TextArrayType),
    /** The role it was made with (src/auth/roles.ts); `scopes` hold what it grants. */
    role: p.string().length(16).nullable(),
    /** The key that created it over the API; null for the CLI's. */
    createdByKeyId: p.string().nullable(),
    /** This key's own rate (`--rate`); both null means NEOFLOW_RATE_LIMIT applies. */
    rateRequests: p.integer().nullable(),
    rateWindowSeconds: p.integer().nullable(),
    createdAt: createdAt(),
    revokedAt: p.datetime().nullable(),
    /** Written by the admission at most once a minute (src/auth/api-key.sql.ts). */
    lastUsedAt: p.datetime().nullable(),
    /** From then on the key is refused as an unknown one. */
    expiresAt: p.datetime().nullable(),
  },
});

export type ApiKey = InferEntity<typeof ApiKey>;

import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { createdAt } from '../db/resource-properties.ts';
import { FunctionDef } from './function.entity.ts';
import type { VersionSettings } from './versioned-fields.ts';

/**
 * One immutable version of a function: what it ran from `createdAt` on, made by the API key
 * `keyId` (null for the version 1 of a function that predates versions). Code and settings are
 * kept as the function holds them (code and environment in clear, secrets by name: their values
 * stay in the secrets' own sealed rows).
 */
export const FunctionVersion = defineEntity({
  name: 'FunctionVersion',
  tableName: 'function_versions',
  primaryKeys: ['function', 'version'],
  properties: {
    function: () => p.manyToOne(FunctionDef).primary().deleteRule('cascade'),
    version: p.integer().primary(),
    code: p.text().lazy(),
    codeSha256: p.string().length(64),
    settings: p.json<VersionSettings>(),
    keyId: p.string().nullable(),
    createdAt: createdAt(),
  },
});

export type FunctionVersion = InferEntity<typeof FunctionVersion>;

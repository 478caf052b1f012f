import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { Account } from '../auth/account.entity.ts';
import { TextArrayType } from '../db/text-array.ts';
import { prefixedId, timestamps } from '../db/resource-properties.ts';

/**
 * The languages a function's code is written in (its field `runtime`). `typescript`: the code is
 * TypeScript, run once stripped of its types (src/sandbox/typescript.ts).
 */
export const languages = ['node16', 'node18', 'typescript'] as const;
export type Language = (typeof languages)[number];

/** A stored JavaScript function of an account. */
export const FunctionDef = defineEntity({
  name: 'FunctionDef',
  tableName: 'functions',
  uniques: [{ properties: ['account', 'name'] }],
  properties: {
    id: prefixedId('func'),
    account: () => p.manyToOne(Account).deleteRule('cascade'),
    name: p.string().length(64),
    description: p.text().nullable(),
    runtime: p.string().length(16).$type<Language>(),
    timeout: p.integer(),
    code: p.text(),
    // Always 'active' (docs/api.md, "Functions"): the interface names no other state of a function.
    status: p.string().length(16).$type<'active'>(),
    tags: p.type(TextArrayType),
    environment: p.json<Record<string, string>>(),
    secrets: p.type(TextArrayType),
    /** The hosts `context.services.http.fetch` may reach (allowed-hosts.ts); none by default. */
    allowedHosts: p.type(TextArrayType),
    /** The version it runs now (function_versions): the latest made, or the one last promoted. */
    version: p.integer().default(1),
    /** The version last promoted (a rollback's target): kept whatever versions follow it. */
    promotedVersion: p.integer().nullable(),
    ...timestamps(),
  },
});

export type FunctionDef = InferEntity<typeof FunctionDef>;

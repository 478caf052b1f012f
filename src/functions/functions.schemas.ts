import { z } from 'zod';
import { integerIn } from '../wire/integer-in.ts';
import { paginationQuery } from '../wire/pagination.ts';
import { queryFlag } from '../wire/query-forms.ts';
import { secretName } from '../secrets/secrets.schemas.ts';
import { allowedHosts } from './allowed-hosts.ts';
import { languages } from './function.entity.ts';

const maxCodeBytes = 256 * 1024;

const name = z
  .string({ error: 'must be a string' })
  .regex(/^[A-Za-z0-9-]{1,64}$/, 'must be 1 to 64 letters, digits or hyphens');
const runtime = z
  .enum(languages, { error: 'must be node16, node18 or typescript' })
  .describe('node16 and node18 run JavaScript; typescript runs TypeScript stripped of its types (docs/functions.md).');
const timeout = integerIn(1, 300);
const code = z
  .string({ error: 'must be a string' })
  .min(1, 'must not be empty')
  .refine((text) => Buffer.byteLength(text, 'utf8') <= maxCodeBytes, `must be at most ${maxCodeBytes} bytes`);
const description = z.string({ error: 'must be a string' }).max(1024, 'must be at most 1024 characters');
const tags = z
  .array(z.string({ error: 'must be a string' }).min(1).max(64, 'must be at most 64 characters'), {
    error: 'must be an array of strings',
  })
  .max(50, 'must hold at most 50 tags');

/** `environment`: string values under identifier-like keys, at most 100 of them. */
export const environment = z
  .record(
    z
      .string()
      .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'keys must be letters, digits and underscores, not starting with a digit'),
    z.string({ error: 'values must be strings' }),
    { error: 'must be an object of string values' },
  )
  .refine((env) => Object.keys(env).length <= 100, 'must hold at most 100 variables');

/** Secrets a function may hold granted: bounds each read of them (and each run's masking). */
const maxGrantedSecrets = 100;

/** `secrets`: names of the account's secrets, each once, at most `maxGrantedSecrets`. */
const secretNames = z
  .array(secretName, { error: 'must be an array of secret names' })
  .max(maxGrantedSecrets, `must name at most ${maxGrantedSecrets} secrets`)
  .superRefine((names, ctx) => {
    const seen = new Set<string>();
    names.forEach((name, index) => {
      if (seen.has(name)) ctx.addIssue({ code: 'custom', message: `names "${name}" twice`, path: [index] });
      seen.add(name);
    });
  });

const fields = { name, code, runtime, description, timeout, environment, secrets: secretNames, tags, allowedHosts };

export const createFunctionBody = z
  .strictObject({
    ...fields,
    description: description.optional(),
    timeout: timeout.default(30),
    environment: environment.default({}),
    secrets: secretNames.default([]),
    tags: tags.default([]),
    allowedHosts: allowedHosts.default([]),
  })
  .meta({ id: 'FunctionCreate' });

export const updateFunctionBody = z
  .strictObject({
    name: name.optional(),
    code: code.optional(),
    runtime: runtime.optional(),
    description: description.nullable().optional(),
    timeout: timeout.optional(),
    environment: environment.optional(),
    secrets: secretNames.optional(),
    tags: tags.optional(),
    allowedHosts: allowedHosts.optional(),
  })
  .refine((body) => Object.keys(body).length > 0, { message: 'body names no field to change' })
  .meta({ id: 'FunctionUpdate' });

export const functionSecretsBody = z.strictObject({ secrets: secretNames });

export const listFunctionsQuery = z.strictObject({
  ...paginationQuery(10),
  tag: z.string().optional(),
  /** Exact name: a name is unique in the account, so the answer holds at most one function. */
  name: name.describe('Exact name: the answer holds at most one function.').optional(),
  runtime: runtime.optional(),
  sort: z
    .enum(['createdAt', 'name', 'updatedAt'], { error: 'must be createdAt, name or updatedAt' })
    .default('createdAt'),
  order: z.enum(['asc', 'desc'], { error: 'must be asc or desc' }).optional(),
});

export const getFunctionQuery = z.strictObject({
  include_code: queryFlag(),
});

export type CreateFunction = z.infer<typeof createFunctionBody>;
export type UpdateFunction = z.infer<typeof updateFunctionBody>;
export type ListFunctions = z.infer<typeof listFunctionsQuery>;

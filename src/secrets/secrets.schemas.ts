import { z } from 'zod';
import { paginationQuery } from '../wire/pagination.ts';

const maxValueBytes = 64 * 1024;

const value = z
  .string({ error: 'must be a string' })
  .min(1, 'must not be empty')
  .refine((text) => Buffer.byteLength(text, 'utf8') <= maxValueBytes, `must be at most ${maxValueBytes} bytes`);

const description = z.string({ error: 'must be a string' }).max(1024, 'must be at most 1024 characters');

/** A secret's name; also how other resources (a webhook's signing secret) name one. */
export const secretName = z
  .string({ error: 'must be a string' })
  .regex(
    /^[A-Za-z_][A-Za-z0-9_]{0,127}$/,
    'must start with a letter or underscore, hold only letters, digits and underscores, and be at most 128 characters',
  );

export const createSecretBody = z
  .strictObject({
    name: secretName,
    value,
    description: description.optional(),
  })
  .meta({ id: 'SecretCreate' });

export const updateSecretBody = z
  .strictObject({
    name: z.never({ error: 'is fixed: create a new secret to use another name' }).optional(),
    value: value.optional(),
    description: description.nullable().optional(),
  })
  .refine((body) => body.value !== undefined || body.description !== undefined, {
    message: 'body needs "value" or "description"',
  })
  .meta({ id: 'SecretUpdate' });

export const listSecretsQuery = z.strictObject(paginationQuery(20));

export type CreateSecret = z.infer<typeof createSecretBody>;
export type UpdateSecret = z.infer<typeof updateSecretBody>;

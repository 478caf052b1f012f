import { z } from 'zod';
import { scopes } from '../auth/scopes.ts';
import { roleNames } from '../auth/roles.ts';
import { paginationQuery } from '../wire/pagination.ts';
import { isoTime, paginationSchema } from '../wire/response-schemas.ts';

const scope = z.enum(scopes, { error: `must be one of ${scopes.join(', ')}` });

export const createKeyBody = z
  .strictObject({
    name: z
      .string({ error: 'must be a string' })
      .trim()
      .min(1, 'must not be empty')
      .max(64, 'must be at most 64 characters'),
    /** A named set of scopes (docs/api.md, "Keys and roles"); or `scopes`, not both. */
    role: z.enum(roleNames, { error: `must be one of ${roleNames.join(', ')}` }).optional(),
    scopes: z.array(scope).min(1, 'must name at least one scope').max(scopes.length).optional(),
    /** After this time the key is refused as an unknown one. */
    expiresAt: z.iso
      .datetime({ offset: true, error: 'must be an ISO 8601 time' })
      .refine((time) => Date.parse(time) > Date.now(), 'must be in the future')
      .optional(),
  })
  .refine((body) => (body.role === undefined) !== (body.scopes === undefined), {
    message: 'body needs exactly one of "role" and "scopes"',
  })
  .meta({ id: 'KeyCreate' });

export const listKeysQuery = z.strictObject(paginationQuery(20));

const keySchema = z
  .strictObject({
    id: z.string(),
    /** null for a key made by `neoflow keys create` without `--name`. */
    name: z.string().nullable(),
    /** The key's first characters, to tell keys apart; never the key. */
    prefix: z.string(),
    /** The role it was made with; null when made with `scopes`. */
    role: z.enum(roleNames).nullable(),
    scopes: z.array(z.string()),
    /** The id of the key that made it; null for a key made by the CLI. */
    createdBy: z.string().nullable(),
    createdAt: isoTime,
    lastUsedAt: isoTime.nullable(),
    expiresAt: isoTime.nullable(),
  })
  .meta({ id: 'Key' });

/** The only answer that holds the key itself: store it, it is never shown again. */
export const createdKeySchema = keySchema.extend({ key: z.string() }).meta({ id: 'CreatedKey' });

export const keyListSchema = z
  .strictObject({ keys: z.array(keySchema), pagination: paginationSchema })
  .meta({ id: 'KeyList' });

export type CreateKey = z.infer<typeof createKeyBody>;

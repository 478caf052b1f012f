import { z } from 'zod';
import { isoTime, paginationSchema } from '../wire/response-schemas.ts';
import type { Secret } from './secret.entity.ts';

/** What the API shows of a secret: never its value, which is write-only. */
export const secretView = (secret: Secret) => ({
  id: secret.id,
  name: secret.name,
  description: secret.description ?? null,
  createdAt: secret.createdAt.toISOString(),
  updatedAt: secret.updatedAt.toISOString(),
});

/** A secret in the list: without its description. */
export const secretListItem = ({ id, name, createdAt, updatedAt }: Secret) => ({
  id,
  name,
  createdAt: createdAt.toISOString(),
  updatedAt: updatedAt.toISOString(),
});

export const secretSchema = z
  .strictObject({
    id: z.string(),
    name: z.string(),
    description: z.string().nullable(),
    createdAt: isoTime,
    updatedAt: isoTime,
  })
  .meta({ id: 'Secret' });

export const secretListSchema = z
  .strictObject({
    secrets: z.array(secretSchema.omit({ description: true }).meta({ id: 'SecretSummary' })),
    pagination: paginationSchema,
  })
  .meta({ id: 'SecretPage' });

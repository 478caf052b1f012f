import { z } from 'zod';
import { integerIn } from '../../wire/integer-in.ts';
import { paginationQuery } from '../../wire/pagination.ts';
import { shownAs } from '../../wire/query-forms.ts';
import { isoTime } from '../../wire/response-schemas.ts';
import { storageLimits } from './storage-limits.ts';

const maxVersion = 2 ** 31 - 1;

export const listStorageQuery = z.strictObject({
  ...paginationQuery(100),
  prefix: z
    .string({ error: 'must be a string' })
    .max(storageLimits.keyChars, `must be at most ${storageLimits.keyChars} characters`)
    .default(''),
});

/** `value`: any JSON, at most 64 KiB as JSON; `ifVersion`: the version the key must have (0: absent). */
export const putStorageBody = z
  .strictObject({
    value: z
      .unknown()
      .refine((value) => value !== undefined, 'is required')
      .refine(
        (value) => Buffer.byteLength(JSON.stringify(value)) <= storageLimits.valueBytes,
        `must be at most ${storageLimits.valueBytes} bytes as JSON`,
      ),
    ifVersion: integerIn(0, maxVersion).optional(),
  })
  .meta({ id: 'StoragePut' });

export const deleteStorageQuery = z.strictObject({
  ifVersion: shownAs(
    z
      .string()
      .regex(/^\d{1,10}$/, 'must be an integer of 0 or more')
      .transform(Number)
      .pipe(z.number().max(maxVersion, `must be at most ${maxVersion}`)),
    { type: 'integer', minimum: 0, maximum: maxVersion },
  ).optional(),
});

export const storageItemSchema = z
  .strictObject({
    key: z.string(),
    version: z.number().int(),
    size: z.number().int(),
    updatedAt: isoTime,
  })
  .meta({ id: 'StorageItem' });

export const storageEntrySchema = storageItemSchema.extend({ value: z.unknown() }).meta({ id: 'StorageEntry' });

export type ListStorage = z.infer<typeof listStorageQuery>;

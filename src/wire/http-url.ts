import { z } from 'zod';

/** An absolute http or https URL a tenant names (a price source, a webhook): at most 2 KiB. */
export const httpUrl = z
  .string({ error: 'must be a string' })
  .max(2048, 'must be at most 2048 characters')
  .refine((value) => URL.canParse(value) && ['http:', 'https:'].includes(new URL(value).protocol), {
    message: 'must be an http or https URL',
  });

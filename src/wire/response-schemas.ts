import { z } from 'zod';

/** The schemas answers are declared with (src/api/route-kit.ts): shared shapes of every area. */

/** A time as the API writes it: ISO 8601 in UTC with milliseconds. */
export const isoTime = z.iso.datetime();

export const paginationSchema = z
  .strictObject({
    total: z.number().int(),
    limit: z.number().int(),
    offset: z.number().int(),
    hasMore: z.boolean(),
  })
  .meta({ id: 'Pagination' });

/** The functions area's envelope around one value. */
export const dataEnvelope = <T extends z.ZodType>(data: T) => z.strictObject({ success: z.literal(true), data });

/** The functions area's envelope around a page of a list, named `id` in the OpenAPI document. */
export const dataPageEnvelope = <T extends z.ZodType>(item: T, id: string) =>
  z.strictObject({ success: z.literal(true), data: z.array(item), pagination: paginationSchema }).meta({ id });

/** What the bare areas answer to a delete. */
export const deletedMessage = z.strictObject({ success: z.literal(true), message: z.string() });

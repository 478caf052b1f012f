import { z } from 'zod';

/** `limit` 1..100 and `offset` ≥ 0, integers, never clamped: anything else is a 400. */
export function paginationQuery(defaultLimit: number) {
  return {
    limit: z.coerce
      .number({ error: 'must be an integer from 1 to 100' })
      .int('must be an integer from 1 to 100')
      .min(1, 'must be an integer from 1 to 100')
      .max(100, 'must be an integer from 1 to 100')
      .default(defaultLimit),
    offset: z.coerce
      .number({ error: 'must be an integer of 0 or more' })
      .int('must be an integer of 0 or more')
      .min(0, 'must be an integer of 0 or more')
      .default(0),
  };
}

/** The functions area's list envelope: `hasMore` says whether a later page holds more. */
export function pageEnvelope<T>(items: T[], page: { limit: number; offset: number }, total: number) {
  const pagination = { total, limit: page.limit, offset: page.offset, hasMore: page.offset + items.length < total };
  return { success: true, data: items, pagination };
}

import { z } from 'zod';
import { shownAs } from './query-forms.ts';

/** A query parameter of decimal digits only: `''`, `0x10` or `1e1` are not integers here. */
const integerParameter = (message: string) =>
  z
    .string({ error: message })
    .regex(/^\d{1,9}$/, message)
    .transform(Number);

/** `limit` 1..100 and `offset` ≥ 0, integers, never clamped: anything else is a 400. */
export function paginationQuery(defaultLimit: number) {
  const limit = 'must be an integer from 1 to 100';
  const offset = 'must be an integer of 0 or more';
  return {
    limit: shownAs(integerParameter(limit).pipe(z.number().min(1, limit).max(100, limit)).default(defaultLimit), {
      type: 'integer',
      minimum: 1,
      maximum: 100,
      default: defaultLimit,
    }),
    offset: shownAs(integerParameter(offset).default(0), {
      type: 'integer',
      minimum: 0,
      maximum: 999_999_999,
      default: 0,
    }),
  };
}

/** A list's `pagination`: `hasMore` says whether a later page holds more. */
export function paginationOf(page: { limit: number; offset: number }, itemCount: number, total: number) {
  return { total, limit: page.limit, offset: page.offset, hasMore: page.offset + itemCount < total };
}

/** The functions area's list envelope. */
export function pageEnvelope<T>(items: T[], page: { limit: number; offset: number }, total: number) {
  return { success: true, data: items, pagination: paginationOf(page, items.length, total) };
}

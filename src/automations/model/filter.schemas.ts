import { z } from 'zod';
import { vmIntegerPattern } from '../../chain/contract-args.ts';

/**
 * A blockchain trigger's filter: event argument → the value it must have, or operators on it.
 * Every filter is compared with every notification of its contract in the one follower per
 * network: each part is bounded here, and parsed once per trigger (filter-conditions.ts).
 */

/** Keys of a filter, values of an `in`, filters of an `anyOf`, a trigger's contracts and events. */
export const maxListed = 16;
const maxFilterChars = 1024;

const plainValue = z
  .union([z.string(), z.number(), z.boolean(), z.null()], {
    error: 'values must be strings, numbers, booleans or null',
  })
  .refine(
    (value) => typeof value !== 'string' || value.length <= maxFilterChars,
    `values must be at most ${maxFilterChars} characters`,
  );

/** An operand of an order operator: a NeoVM integer (256 bits: at most 78 digits), compared as a big integer. */
const integerOperand = z.union(
  [
    z.string().regex(vmIntegerPattern, 'must be an integer of at most 78 digits'),
    z.number().refine(Number.isSafeInteger, 'must be a safe integer; give larger ones as a string'),
  ],
  { error: 'must be an integer, as a string of at most 78 digits or a safe integer number' },
);

export const filterOperators = ['gt', 'gte', 'lt', 'lte', 'ne', 'in', 'contains'] as const;

/** Operators on one argument, all of which must hold: `{gte: "10", lt: "100"}`. */
const operatorsSchema = z
  .strictObject({
    gt: integerOperand.optional(),
    gte: integerOperand.optional(),
    lt: integerOperand.optional(),
    lte: integerOperand.optional(),
    ne: plainValue.optional(),
    in: z
      .array(plainValue, { error: 'must be a list of values' })
      .min(1, 'must list at least one value')
      .max(maxListed, `must list at most ${maxListed} values`)
      .optional(),
    contains: z
      .string({ error: 'must be a string' })
      .min(1, 'must not be empty')
      .max(maxFilterChars, `must be at most ${maxFilterChars} characters`)
      .optional(),
  })
  .refine((operators) => Object.values(operators).some((operand) => operand !== undefined), {
    message: `must hold at least one of ${filterOperators.join(', ')}`,
  });

export type FilterOperators = z.infer<typeof operatorsSchema>;
export type FilterValue = z.infer<typeof plainValue> | FilterOperators;

export const filterSchema = z
  .record(z.string().max(256, 'keys must be at most 256 characters'), z.union([plainValue, operatorsSchema]), {
    error: 'must be an object',
  })
  .refine((filter) => Object.keys(filter).length <= maxListed, `must hold at most ${maxListed} keys`)
  .meta({ id: 'EventFilter' });

export type Filter = z.infer<typeof filterSchema>;

/**
 * Values a trigger's `filter` and `anyOf` hold in all (an operand counting one, an `in` each of its
 * values): each is normalised, and each account it names decoded, whenever the follower reads the
 * trigger anew, so an account's filters cost the shared follower at most this many per automation.
 */
export const maxFilterValues = 512;

export function filterValueCount(filters: (Filter | undefined)[]): number {
  let count = 0;
  for (const value of filters.flatMap((filter) => Object.values(filter ?? {}))) {
    if (typeof value !== 'object' || value === null) count += 1;
    else for (const operand of Object.values(value)) count += Array.isArray(operand) ? operand.length : 1;
  }
  return count;
}

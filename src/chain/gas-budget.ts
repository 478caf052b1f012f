import { z } from 'zod';

/**
 * A limit in GAS: more than 0, at most 9 digits before the point and 8 after (GAS has 8
 * decimals), so that limits and what is spent against them stay within a bigint of GAS fractions.
 */
export const gasLimit = z
  .string({ error: 'must be a string' })
  .max(18, 'must be at most 18 characters')
  .regex(/^\d{1,9}(\.\d{1,8})?$/, 'must be an amount of GAS such as "5" or "0.5" (at most 9 digits and 8 decimals)')
  .refine((value) => /[1-9]/.test(value), 'must be more than 0');

/**
 * What the transactions of an automation that sends may cost, in GAS: each run's (`perRun`), a UTC
 * day's (`perDay`) and all of them together (`total`); at least one of them.
 */
export const budgetSchema = z
  .strictObject(
    { perRun: gasLimit.optional(), perDay: gasLimit.optional(), total: gasLimit.optional() },
    { error: 'must be an object with perRun, perDay or total' },
  )
  .refine((budget) => Object.keys(budget).length > 0, 'must set perRun, perDay or total')
  .meta({ id: 'GasBudget' });

export type Budget = z.infer<typeof budgetSchema>;

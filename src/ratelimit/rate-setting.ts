import { z } from 'zod';
import { parseRate } from './rate.ts';

/** A rate setting: `<requests>/<seconds>s`, such as 100/10s. */
export const rateSetting = (fallback: string) =>
  z
    .string()
    .default(fallback)
    .transform((value, context) => {
      const rate = parseRate(value);
      if (rate === undefined)
        context.addIssue({ code: 'custom', message: 'must be <requests>/<seconds>s, such as 100/10s' });
      return rate ?? z.NEVER;
    });

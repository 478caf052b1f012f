import { z } from 'zod';
import { hash160Pattern } from '../../chain/contract-args.ts';

/** The fields a trigger, an action and the API's bodies write alike, with the same messages. */

/** A validation failure that the contract gives its own code (`INVALID_CRON`, `INVALID_SCRIPT_HASH`). */
export const coded = (errorCode: string, message: string) => ({
  code: 'custom' as const,
  message,
  params: { errorCode },
});

export const text = (max: number) =>
  z.string({ error: 'must be a string' }).min(1, 'must not be empty').max(max, `must be at most ${max} characters`);

export const scriptHash = z.string({ error: 'must be a string' }).superRefine((value, ctx) => {
  if (!hash160Pattern.test(value)) {
    ctx.addIssue(coded('invalid_script_hash', 'must be 0x followed by 40 hexadecimal characters'));
  }
});

/** The message of a tagged union: on its `type` when the tag is wrong, else on the whole value. */
export const unionError = (types: string) => (issue: { code?: string }) =>
  issue.code === 'invalid_union' ? `must be ${types}` : `must be an object whose type is ${types}`;

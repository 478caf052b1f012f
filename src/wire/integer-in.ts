import { z } from 'zod';

/** A JSON integer from `min` to `max`; whatever is wrong with it, the message gives the range. */
export function integerIn(min: number, max: number) {
  const message = `must be an integer from ${min} to ${max}`;
  return z.number({ error: message }).int(message).min(min, message).max(max, message);
}

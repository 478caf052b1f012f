import type { Middleware } from 'koa';
import { invalidRequest } from '../errors.ts';

/**
 * PostgreSQL cannot store U+0000 in text or jsonb (its driver even fails the query), so a request
 * holding it is refused here, as the client's mistake it is, rather than failing deep inside.
 */
export const nulRefused = () => invalidRequest('Text in a request cannot hold the NUL character (U+0000).');

/** A JSON.parse reviver's view: whether this key or string value holds U+0000. */
export const holdsNul = (key: string, value: unknown) =>
  key.includes('\0') || (typeof value === 'string' && value.includes('\0'));

/** Refuses a path holding an encoded NUL (`%00`), which the router would decode into an id. */
export const refuseNulInPath: Middleware = async (ctx, next) => {
  if (/%00/.test(ctx.path)) throw nulRefused();
  await next();
};

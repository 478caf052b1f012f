import type { Middleware } from 'koa';
import { invalidRequest, type AppError } from '../errors.ts';

/**
 * PostgreSQL cannot store U+0000 in text or jsonb (its driver even fails the query), and a lone
 * UTF-16 surrogate (`"\ud800"`, valid JSON) is no Unicode at all: jsonb refuses it and text would
 * silently turn it into U+FFFD. A request holding either is refused here, as the client's mistake
 * it is, rather than failing deep inside or coming back altered.
 */
const nulRefused = () => invalidRequest('Text in a request cannot hold the NUL character (U+0000).');
const surrogateRefused = () =>
  invalidRequest('Text in a request cannot hold a lone UTF-16 surrogate (such as \\ud800): it is not valid Unicode.');
const badEncoding = () => invalidRequest('The path and query string must be valid percent-encoded UTF-8.');

/** Why `text` cannot be stored as it is; undefined when it can. */
export function unstorable(text: string): AppError | undefined {
  if (text.includes('\0')) return nulRefused();
  if (!text.isWellFormed()) return surrogateRefused();
  return undefined;
}

/**
 * Refuses a path or query string that decodes to unstorable text (`%00`), or does not decode at
 * all (`%ED%A0%80`, the encoding of a lone surrogate, is no UTF-8), before the router or the
 * query parser decodes it into an id or a filter.
 */
export const refuseUnstorableUrl: Middleware = async (ctx, next) => {
  for (const part of [ctx.path, ctx.querystring]) {
    const problem = unstorable(percentDecoded(part));
    if (problem) throw problem;
  }
  await next();
};

function percentDecoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    throw badEncoding();
  }
}

import type { Context, Middleware } from 'koa';
import { AppError, invalidRequest } from '../errors.ts';
import { nestingDepth } from '../json/json-depth.ts';
import { unstorable } from './storable-text.ts';

declare module 'koa' {
  interface Request {
    /** The parsed JSON body; undefined when the request has none. Validate before use. */
    body?: unknown;
  }
}

const maxBodyBytes = 1024 * 1024;
/** Far deeper than any resource needs; deeper bodies would only tie up the parser and the database. */
const maxBodyDepth = 64;

const tooLarge = (limit: number) =>
  new AppError('payload_too_large', `Request bodies are limited to ${limit} bytes.`, { limit });

/** Paths whose route reads its body itself, as raw bytes under its own bound (an inbound webhook's). */
const ownBodyPrefixes = ['/v1/hooks/'];

const tooDeep = () =>
  invalidRequest(`The request body nests arrays and objects more than ${maxBodyDepth} levels deep.`);

/**
 * Reads a JSON body of at most 1 MiB into `ctx.request.body` (undefined when there is none).
 * The limit is checked on the declared length first, then on the bytes as they stream in.
 */
export const jsonBody: Middleware = async (ctx, next) => {
  const ownBody = ownBodyPrefixes.some((prefix) => ctx.path.startsWith(prefix));
  if (!ownBody && (ctx.request.length || ctx.get('Transfer-Encoding'))) await readBody(ctx);
  await next();
};

async function readBody(ctx: Context) {
  const raw = (await readRawBody(ctx, maxBodyBytes)).toString('utf8');
  if (raw.length > 0) {
    const type = ctx.request.type;
    if (type && !ctx.is('json'))
      throw invalidRequest('The request body must be JSON (Content-Type: application/json).');
    ctx.request.body = parseJson(raw);
  }
}

/** The body's bytes, at most `limit`: checked on the declared length first, then as they stream in. */
export async function readRawBody(ctx: Context, limit: number): Promise<Buffer> {
  if ((ctx.request.length ?? 0) > limit) throw tooLarge(limit);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw tooLarge(limit);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/**
 * Parses the body, refusing nesting beyond `maxBodyDepth` and any key or string value that
 * PostgreSQL could not store as is.
 */
export function parseJson(raw: string): unknown {
  if (nestingDepth(raw) > maxBodyDepth) throw tooDeep();
  let problem: AppError | undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw, (key, value: unknown) => {
      problem ??= unstorable(key) ?? (typeof value === 'string' ? unstorable(value) : undefined);
      return value;
    });
  } catch {
    throw invalidRequest('The request body is not valid JSON.');
  }
  if (problem) throw problem;
  return parsed;
}

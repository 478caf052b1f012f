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

const tooLarge = () =>
  new AppError('payload_too_large', `Request bodies are limited to ${maxBodyBytes} bytes.`, {
    limit: maxBodyBytes,
  });

const tooDeep = () =>
  invalidRequest(`The request body nests arrays and objects more than ${maxBodyDepth} levels deep.`);

/**
 * Reads a JSON body of at most 1 MiB into `ctx.request.body` (undefined when there is none).
 * The limit is checked on the declared length first, then on the bytes as they stream in.
 */
export const jsonBody: Middleware = async (ctx, next) => {
  if (ctx.request.length || ctx.get('Transfer-Encoding')) await readBody(ctx);
  await next();
};

async function readBody(ctx: Context) {
  if ((ctx.request.length ?? 0) > maxBodyBytes) throw tooLarge();
  const raw = await readLimited(ctx.req);
  if (raw.length > 0) {
    const type = ctx.request.type;
    if (type && !ctx.is('json'))
      throw invalidRequest('The request body must be JSON (Content-Type: application/json).');
    ctx.request.body = parseJson(raw);
  }
}

async function readLimited(stream: AsyncIterable<Buffer>): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    size += chunk.length;
    if (size > maxBodyBytes) throw tooLarge();
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * Parses the body, refusing nesting beyond `maxBodyDepth` and any key or string value that
 * PostgreSQL could not store as is.
 */
function parseJson(raw: string): unknown {
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

import { createHash, timingSafeEqual } from 'node:crypto';
import type { Context, Middleware } from 'koa';
import { requireSetting, type Config } from '../config.ts';
import { AppError } from '../errors.ts';

const unauthorized = () =>
  new AppError('unauthorized', 'The operator token is required (Authorization: Bearer <NEOFLOW_OPERATOR_TOKEN>).');

/** Hashing first gives equal lengths, so the comparison takes the same time whatever is sent. */
const digest = (value: string) => createHash('sha256').update(value).digest();

const isLoopback = (address: string | undefined) => /^(127\.|::1$|::ffff:127\.)/.test(address ?? '');

/**
 * Only operators may decode payloads: the caller presents the operator token as a bearer token.
 *
 * The Web UI cannot send it: it calls the codec endpoint straight from the browser with neither a
 * configurable header nor, as `temporal server start-dev` configures it, credentials (it could
 * only forward an OIDC access token, which the dev server has none of). So in development alone a
 * request without the token is accepted when it comes from the dev UI itself: its TCP peer is this
 * machine's loopback and its `Origin` is an allowed UI origin. Browsers set `Origin` themselves,
 * so no web page elsewhere (DNS rebinding included) can pass; only a program on this machine that
 * forges the header can, and such a program can already drive the dev server and its Web UI, which
 * have no authentication at all. Production and test never trust the origin: the token is the only
 * way in.
 */
export function operatorGuard(config: Config): Middleware {
  const expected = digest(requireSetting(config.secrets.operatorToken, 'NEOFLOW_OPERATOR_TOKEN'));
  const trustsDevUi = config.env === 'development';
  const origins = config.codec.allowedOrigins;
  return async (ctx, next) => {
    if (!(presentsToken(ctx, expected) || (trustsDevUi && isLocalDevUi(ctx, origins)))) throw unauthorized();
    await next();
  };
}

function presentsToken(ctx: Context, expected: Buffer): boolean {
  const token = /^Bearer\s+(\S+)\s*$/i.exec(ctx.get('Authorization'))?.[1];
  return token !== undefined && timingSafeEqual(digest(token), expected);
}

function isLocalDevUi(ctx: Context, origins: string[]): boolean {
  return isLoopback(ctx.req.socket.remoteAddress) && origins.includes(ctx.get('Origin'));
}

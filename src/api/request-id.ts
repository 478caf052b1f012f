import type { Middleware } from 'koa';
import { newId } from '../ids.ts';

const validRequestId = /^[A-Za-z0-9._:-]{1,128}$/;

/** Echoes a well-formed incoming X-Request-Id, else mints one; every response carries it. */
export const requestId: Middleware = async (ctx, next) => {
  const incoming = ctx.get('X-Request-Id');
  const id = validRequestId.test(incoming) ? incoming : newId('req');
  ctx.state.requestId = id;
  ctx.set('X-Request-Id', id);
  await next();
};

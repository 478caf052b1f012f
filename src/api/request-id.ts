import type { Middleware } from 'koa';
import { newId } from '../ids.ts';

const validRequestId = /^[A-Za-z0-9._:-]{1,128}$/;

/** A request's id: its X-Request-Id when well-formed, else a new one. */
export const requestIdOf = (incoming: string | string[] | undefined) =>
  typeof incoming === 'string' && validRequestId.test(incoming) ? incoming : newId('req');

/** Echoes a well-formed incoming X-Request-Id, else mints one; every response carries it. */
export const requestId: Middleware = async (ctx, next) => {
  const id = requestIdOf(ctx.get('X-Request-Id'));
  ctx.state.requestId = id;
  ctx.set('X-Request-Id', id);
  await next();
};

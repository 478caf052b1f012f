import { createHash } from 'node:crypto';
import type { Middleware } from 'koa';
import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError, invalidRequest } from '../errors.ts';
import { open, seal, type MasterKeys } from '../crypto/envelope.ts';
import { sealContexts } from '../crypto/seal-contexts.ts';
import { areaOf, errorBody } from './areas.ts';
import type { Caller } from '../auth/admission.ts';
import { claim, keep, release } from './idempotent-request.sql.ts';

/** Stripe's semantics: a key names one request of one account for a day. */
const keyPattern = /^[\x21-\x7e]{1,255}$/;

interface Stored {
  status: number;
  body: unknown;
}

/**
 * Makes a create or an invoke safe to repeat: with an `Idempotency-Key` header, the first request
 * claims the key and its answer is kept (sealed: an invoke's answer may hold what the code read
 * from a secret) for 24 hours. The same key with the same request answers that again, without
 * running anything (`Idempotent-Replayed: true`); with another request, or while the first is
 * still being answered, it answers 409 in the area's shape. A request refused as invalid, or for
 * now (forNow), or one that failed on our side, keeps nothing: the client fixes or retries it
 * under the same key.
 */
export function idempotent(services: { em: () => EntityManager; masterKeys: MasterKeys }): Middleware {
  return async (ctx, next) => {
    const key = ctx.get('Idempotency-Key');
    if (!key) {
      await next();
      return;
    }
    if (!keyPattern.test(key)) throw invalidRequest('Idempotency-Key must be 1 to 255 visible ASCII characters.');
    const { accountId } = ctx.state.caller as Caller;
    // The query is part of the request: a retry's `?version=latest` runs other code.
    const requestHash = hashRequest(ctx.method, ctx.url, ctx.request.body);
    const em = services.em();
    const earlier = await claim(em, accountId, key, requestHash);
    const context = sealContexts.idempotentAnswer(accountId, key);
    if (earlier === 'claimed') {
      try {
        await next();
      } catch (thrown) {
        if (thrown instanceof AppError && !forNow(thrown)) {
          const answer = { status: thrown.status, body: errorBody(areaOf(ctx.path), thrown) };
          await keep(em, accountId, key, seal(JSON.stringify(answer), context, services.masterKeys));
        } else await release(em, accountId, key);
        throw thrown;
      }
      const answer: Stored = { status: ctx.status, body: ctx.body as unknown };
      await keep(em, accountId, key, seal(JSON.stringify(answer), context, services.masterKeys));
      return;
    }
    if (earlier.requestHash !== requestHash) {
      throw new AppError('conflict', 'This Idempotency-Key was already used with another request.', {
        idempotencyKey: key,
      });
    }
    if (!earlier.sealed) {
      throw new AppError('conflict', 'A request with this Idempotency-Key is still being answered; retry shortly.', {
        idempotencyKey: key,
      });
    }
    const stored = JSON.parse(open(earlier.sealed, context, services.masterKeys)) as Stored;
    ctx.status = stored.status;
    ctx.body = stored.body;
    ctx.set('Idempotent-Replayed', 'true');
  };
}

/**
 * A refusal that did nothing and may not hold for the same request later: invalid (fixed under the
 * same key), any 409 the handler answers (the account's automations at their limit, a replay of
 * the automation running, a run's transaction pending, a name taken, a run or execution not failed
 * yet: each says "not now"; the key's own 409s are answered before the handler runs), over a limit
 * for now (429), or failed on our side (5xx but a function's own `execution_error`, which ran).
 */
export const forNow = (thrown: AppError) =>
  thrown.code === 'invalid_request' ||
  thrown.status === 409 ||
  thrown.status === 429 ||
  (thrown.status >= 500 && thrown.code !== 'execution_error');

/** The method, the path (ids included) and the body, whatever the order of its fields. */
function hashRequest(method: string, path: string, body: unknown): string {
  return createHash('sha256')
    .update(JSON.stringify([method, path, canonical(body)]))
    .digest('hex');
}

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((name) => [name, canonical((value as Record<string, unknown>)[name])]),
  );
}

import type { Router } from '@koa/router';
import type { Middleware } from 'koa';
import { z } from 'zod';
import { errorBody } from '../../api/areas.ts';
import { areaRouter, route } from '../../api/route-kit.ts';
import { parseJson, readRawBody } from '../../api/json-body.ts';
import type { AppError } from '../../errors.ts';
import type { Logger } from '../../log.ts';
import { hooksReceived } from '../../metrics/metrics.ts';
import type { Rate } from '../../ratelimit/rate.ts';
import type { Resources } from '../../resources.ts';
import type { WorkflowStarter } from '../../temporal/workflow-starter.ts';
import { acceptHook, overRate } from './hooks.control.ts';
import { looksLikeHookPath } from './hook-credentials.ts';
import { hookRunSchema } from './hook.view.ts';
import { LocalBuckets } from './local-buckets.ts';

/** A hook's body: JSON of at most 256 KiB, bounded before it is read whole, parsed once admitted. */
const maxHookBodyBytes = 256 * 1024;

/** A path fit for a log line: a hook's path is half its credential, cut even in the wrong case. */
export const loggableHookPath = (path: string) => path.replace(/^\/v1\/hooks\/[^/]*/i, '/v1/hooks/…');

/**
 * The inbound webhooks area: no API key (src/api/auth.ts leaves it open); the hook's token or an
 * HMAC of its body is the credential (hooks.control.ts). Answers in the general envelope.
 */
export function hooksRoutes(resources: Resources, starter: WorkflowStarter): Router {
  const { config } = resources;
  return areaRouter('/v1/hooks', [
    route({
      method: 'post',
      path: '/:path',
      errors: ['not_found', 'conflict', 'rate_limit_exceeded', 'payload_too_large'],
      summary: 'Deliver to a hook',
      description:
        'Starts a run of the `webhook` automation this path belongs to, with the JSON body (at most 256 KiB) as `trigger.body`, and answers 202 with the run once it is recorded, before its action runs. The credential is the automation\'s token (`Authorization: Bearer nfh_…` or `X-Neoflow-Token`) or an HMAC signature of the raw body in the header the trigger names. An unknown path and wrong credentials answer the same 404; a paused automation 409, recording nothing. An `Idempotency-Key` (or the body field the trigger names as `dedupField`) makes a repeat answer the same run for 24 h. Docs/api.md, "Inbound webhooks".',
      tag: 'Automations',
      // Read raw by the handler (an HMAC is of the bytes sent); declared for the document.
      body: z.unknown().describe('Any JSON value: the run receives it as `trigger.body`.'),
      bodyOptional: true,
      responses: { 202: hookRunSchema },
      handle: async ({ ctx, params }) => {
        const raw = await readRawBody(ctx, maxHookBodyBytes);
        const accepted = await acceptHook(
          { ...starter, em: resources.em(), masterKeys: resources.masterKeys, rates: config.hookRates },
          {
            path: params.path,
            header: (name) => ctx.get(name),
            raw,
            parse: (bytes) => parseJson(bytes.toString('utf8')),
          },
        );
        if (accepted.repeated) ctx.set('Idempotent-Replayed', 'true');
        return { status: 202, body: { run: accepted.run } };
      },
    }),
  ]);
}

/** The route's path, as the router matches it: `/v1/hooks/<path>`, a trailing slash allowed. */
const hookRoute = /^\/v1\/hooks\/([^/]+)\/?$/;
const routeTemplate = '/v1/hooks/:path';

/**
 * Refuses a hook request over its rate as cheaply as the process can: mounted before the request
 * log, the ORM's request context and the router (src/app/app.ts), it takes a token from this
 * process's bucket of the path (local-buckets.ts) and, when there is none, answers 429 with
 * Retry-After before the body is read, a statement runs or a line is logged. A flood to one hook
 * costs each request a bucket lookup and a short answer; the request log gets one line per 10 s
 * of such refusals, with their count. Every other request goes on as it came.
 */
export function hookGate(rate: Rate, log: Logger): Middleware {
  const local = new LocalBuckets(rate);
  const tally = refusalTally(log);
  // One answer per wait, made once: an Error's stack trace was the dearest step of a refusal.
  const refusals = new Map<number, AppError>();
  const refusal = (wait: number) => {
    let error = refusals.get(wait);
    if (!error) refusals.set(wait, (error = overRate('this hook', rate, wait)));
    return error;
  };
  return async (ctx, next) => {
    const segment = ctx.method === 'POST' ? hookRoute.exec(ctx.path)?.[1] : undefined;
    const path = segment === undefined ? undefined : decoded(segment);
    const wait = path !== undefined && looksLikeHookPath(path) ? local.take(path) : undefined;
    if (wait === undefined) {
      await next();
      return;
    }
    const error = refusal(wait);
    ctx.status = error.status;
    ctx.set(error.headers);
    ctx.body = errorBody('general', error);
    // Labelled in the HTTP metrics as the route would have been (http-metrics.ts reads the router's mark).
    (ctx as { _matchedRoute?: string })._matchedRoute = routeTemplate;
    hooksReceived.inc({ outcome: 'rate_limited' });
    tally();
  };
}

/** The segment as the router hands it to the route: percent-decoded, or as it is when it cannot be. */
function decoded(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** Counts refusals and logs their number once per `everyMs` that had any, instead of a line each. */
function refusalTally(log: Logger, everyMs = 10_000) {
  let count = 0;
  return () => {
    if (count++ > 0) return;
    setTimeout(() => {
      log.info('hook requests refused over their rate', { count, seconds: everyMs / 1000 });
      count = 0;
    }, everyMs).unref();
  };
}

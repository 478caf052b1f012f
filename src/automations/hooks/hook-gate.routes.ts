import type { IncomingMessage, ServerResponse } from 'node:http';
import { errorBody } from '../../api/areas.ts';
import { answerCounter } from '../../api/http-metrics.ts';
import { requestIdOf } from '../../api/request-id.ts';
import type { Logger } from '../../log.ts';
import { hooksReceived } from '../../metrics/metrics.ts';
import type { Rate } from '../../ratelimit/rate.ts';
import { overRate } from './hooks.control.ts';
import { looksLikeHookPath } from './hook-credentials.ts';
import { LocalBuckets } from './local-buckets.ts';

/** The hook route's path (hooks.routes.ts), as the router matches it: a trailing slash allowed, a query after. */
const hookRoute = /^\/v1\/hooks\/([^/?]+)\/?(?:\?|$)/;
const routeTemplate = '/v1/hooks/:path';

/** Answers a hook request over its rate, whole, and says whether it did; any other it leaves alone. */
type Refuse = (request: IncomingMessage, response: ServerResponse) => boolean;

/**
 * Refuses a hook request over its rate as cheaply as a bare `node:http` server answers: the HTTP
 * server's listener calls it before Koa makes a context (src/app/server.ts). It takes a token
 * from this process's bucket of the path (local-buckets.ts) and, when there is none, answers 429
 * with Retry-After and the general error envelope, as the route would, before the body is read, a
 * statement runs or a line is logged: counted in the HTTP metrics under the route's template and
 * in `neoflow_hooks_received_total`, and logged as a count once per 10 s. Answers whether it
 * refused; every other request goes on to the app as it came.
 */
export function hookGate(rate: Rate, log: Logger): Refuse {
  const local = new LocalBuckets(rate);
  const tally = refusalTally(log);
  const counted = answerCounter('POST', routeTemplate, 429);
  const refusedHook = hooksReceived.labels({ outcome: 'rate_limited' });
  // One answer per wait, made once: an error's body serialised, its headers listed.
  const answers = new Map<number, { body: Buffer; headers: Record<string, string> }>();
  const answerOf = (wait: number) => {
    let answer = answers.get(wait);
    if (!answer) answers.set(wait, (answer = refusal(rate, wait)));
    return answer;
  };
  return (request, response) => {
    const started = performance.now();
    const path = request.method === 'POST' ? hookPathOf(request.url ?? '') : undefined;
    const wait = path !== undefined && looksLikeHookPath(path) ? local.take(path) : undefined;
    if (wait === undefined) return false;
    const { body, headers } = answerOf(wait);
    response.writeHead(429, { ...headers, 'X-Request-Id': requestIdOf(request.headers['x-request-id']) });
    response.end(body);
    counted(started);
    refusedHook.inc();
    tally();
    return true;
  };
}

/** What Koa would have sent for the route's 429 (src/api/error-handler.ts): the general envelope as JSON. */
function refusal(rate: Rate, wait: number) {
  const error = overRate('this hook', rate, wait);
  const body = Buffer.from(JSON.stringify(errorBody('general', error)));
  const headers = {
    ...error.headers,
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': String(body.length),
  };
  return { body, headers };
}

/**
 * The hook path a request's target names, percent-decoded as the router hands it to the route (as
 * it is when it cannot be); the path of an absolute-form target too. Undefined for any other path.
 */
function hookPathOf(target: string): string | undefined {
  const segment = hookRoute.exec(target.startsWith('/') ? target : pathnameOf(target))?.[1];
  if (segment === undefined) return undefined;
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

function pathnameOf(target: string): string {
  try {
    return new URL(target).pathname;
  } catch {
    return '';
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

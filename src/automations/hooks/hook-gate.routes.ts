import type { IncomingMessage, ServerResponse } from 'node:http';
import { errorBody } from '../../api/areas.ts';
import { answerCounter } from '../../api/http-metrics.ts';
import { requestIdOf } from '../../api/request-id.ts';
import type { AppError } from '../../errors.ts';
import type { Logger } from '../../log.ts';
import { hooksReceived } from '../../metrics/metrics.ts';
import type { Rate } from '../../ratelimit/rate.ts';
import { hookNotFound, overRate } from './hooks.control.ts';
import { looksLikeHookPath } from './hook-credentials.ts';
import { LocalBuckets } from './local-buckets.ts';

/** The hook route's path (hooks.routes.ts), as the router matches it: a trailing slash allowed, a query after. */
const hookRoute = /^\/v1\/hooks\/([^/?]+)\/?(?:\?|$)/;
const routeTemplate = '/v1/hooks/:path';

/** Answers a hook request over its rate or of no hook's shape, whole, and says whether it did; any other it leaves alone. */
type Refuse = (request: IncomingMessage, response: ServerResponse) => boolean;

/**
 * Refuses a hook request over its rate as cheaply as a bare `node:http` server answers: the HTTP
 * server's listener calls it before Koa makes a context (src/app/server.ts). It takes a token
 * from this process's bucket of the path (local-buckets.ts) and, when there is none, answers 429
 * with Retry-After and the general error envelope, as the route would, before the body is read, a
 * statement runs or a line is logged: counted in the HTTP metrics under the route's template and
 * in `neoflow_hooks_received_total`, and logged as a count once per 10 s. A path of no hook's
 * shape gets the route's 404 there too, before its body is read (a flood of made-up paths costs
 * no body and no lookup). Answers whether it refused; every other request goes on to the app as
 * it came.
 */
export function hookGate(rate: Rate, log: Logger): Refuse {
  const local = new LocalBuckets(rate);
  const tally = refusalTally(log);
  const counted = answerCounter('POST', routeTemplate, 429);
  const refusedHook = hooksReceived.labels({ outcome: 'rate_limited' });
  // One answer per wait, made once: an error's body serialised, its headers listed.
  const answers = new Map<number, Answer>();
  const answerOf = (wait: number) => {
    let answer = answers.get(wait);
    if (!answer) answers.set(wait, (answer = refusal(rate, wait)));
    return answer;
  };
  const notFound = { answer: answerOfError(hookNotFound()), counted: answerCounter('POST', routeTemplate, 404) };
  const unknownHook = hooksReceived.labels({ outcome: 'not_found' });
  return (request, response) => {
    const started = performance.now();
    const path = request.method === 'POST' ? hookPathOf(request.url ?? '') : undefined;
    if (path === undefined) return false;
    const shaped = looksLikeHookPath(path.value);
    // No hook has a path of another shape (its shape is no secret): the route's 404, before its body.
    if (path.decoded && !shaped) {
      send(request, response, 404, notFound.answer);
      notFound.counted(started);
      unknownHook.inc();
      return true;
    }
    const wait = shaped ? local.take(path.value) : undefined;
    if (wait === undefined) return false;
    send(request, response, 429, answerOf(wait));
    counted(started);
    refusedHook.inc();
    tally();
    return true;
  };
}

function send(request: IncomingMessage, response: ServerResponse, status: number, answer: Answer) {
  response.writeHead(status, { ...answer.headers, 'X-Request-Id': requestIdOf(request.headers['x-request-id']) });
  response.end(answer.body);
}

interface Answer {
  body: Buffer;
  headers: Record<string, string>;
}

/** What Koa would have sent for the route's 429 (src/api/error-handler.ts): the general envelope as JSON. */
const refusal = (rate: Rate, wait: number) => answerOfError(overRate('this hook', rate, wait));

/** What Koa sends for `error` (src/api/error-handler.ts): the general envelope as JSON, with the error's headers. */
function answerOfError(error: AppError): Answer {
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
 * it is, `decoded` false, when it cannot be); the path of an absolute-form target too. Undefined
 * for any other path.
 */
function hookPathOf(target: string): { value: string; decoded: boolean } | undefined {
  const segment = hookRoute.exec(target.startsWith('/') ? target : pathnameOf(target))?.[1];
  if (segment === undefined) return undefined;
  try {
    return { value: decodeURIComponent(segment), decoded: true };
  } catch {
    return { value: segment, decoded: false };
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

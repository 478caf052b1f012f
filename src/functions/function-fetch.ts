import type { IncomingHttpHeaders } from 'node:http';
import { z } from 'zod';
import { egressFetch, EgressError, egressMethods, type EgressFailure, type Resolver } from '../egress/egress-fetch.ts';
import { bareHost, type EgressPolicy } from '../egress/egress-policy.ts';
import type { HttpAnswer } from '../sandbox/types.ts';
import { ServiceError } from '../sandbox/service-error.ts';
import { hostAllowed } from './allowed-hosts.ts';
import { executionErrorName } from '../shared/outcomes.ts';

/** One run's bounds on `context.services.http.fetch` (docs/functions.md, "Fetch"). */
export const fetchLimits = {
  requestsPerRun: 10,
  /** Of one answer's body; a longer one fails the request unread past the cap. */
  maxResponseBytes: 1024 * 1024,
  /** For one request, redirects included; `init.timeout` may only shorten it. */
  timeoutMs: 10_000,
  maxUrlChars: 2048,
  maxHeaders: 50,
} as const;

/** One request as the execution records it: never its URL's path or query, headers or body. */
export interface HttpRequestRecord {
  method: string;
  host: string;
  /** null when no answer came (refused, unreachable, timed out, cut off). */
  status: number | null;
  /** Of the answer's body. */
  bytes: number;
  durationMs: number;
  /** The error's name when the request failed. */
  error?: string;
}

// A header name is an HTTP token; a value holds no line break or NUL (RFC 9110, 5.5).
const headerName = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const headerValue = /^[^\r\n\0]*$/;
/** Set by the guard from the URL and the body: a tenant's own would mislead the server or the guard. */
const reservedHeaders = new Set(['host', 'content-length', 'transfer-encoding', 'connection']);

const init = z
  .strictObject({
    method: z
      .string()
      .transform((method) => method.toUpperCase())
      .pipe(z.enum(egressMethods, { error: `must be one of ${egressMethods.join(', ')}` }))
      .default('GET'),
    headers: z
      .record(
        z.string(),
        z.string({ error: 'values must be strings' }).regex(headerValue, 'values must not hold line breaks'),
        { error: 'must be an object of string values' },
      )
      .superRefine((headers, context) => {
        const names = Object.keys(headers);
        if (names.length > fetchLimits.maxHeaders)
          context.addIssue({ code: 'custom', message: `must hold at most ${fetchLimits.maxHeaders} headers` });
        for (const name of names) {
          if (!headerName.test(name))
            context.addIssue({ code: 'custom', path: [name], message: 'is not an HTTP token' });
          else if (reservedHeaders.has(name.toLowerCase()))
            context.addIssue({ code: 'custom', path: [name], message: 'is set by the service itself' });
        }
      })
      .default({}),
    body: z.string({ error: 'must be a string (JSON.stringify an object)' }).optional(),
    timeout: z
      .number({ error: 'must be a number of milliseconds' })
      .int('must be a whole number of milliseconds')
      .min(1, 'must be at least 1 ms')
      .max(fetchLimits.timeoutMs, `must be at most ${fetchLimits.timeoutMs} ms`)
      .default(fetchLimits.timeoutMs),
  })
  .refine((request) => request.body === undefined || !['GET', 'HEAD'].includes(request.method), {
    message: 'a GET or HEAD request has no body',
  });

/** The error name the function's code sees for each way the guard refused or lost a request. */
const errorNames: Record<EgressFailure, string> = {
  refused: executionErrorName.EgressRefusedError,
  not_allowed: executionErrorName.HostNotAllowedError,
  redirect: executionErrorName.RedirectNotAllowedError,
  too_large: executionErrorName.ResponseTooLargeError,
  timeout: executionErrorName.FetchTimeoutError,
  unreachable: executionErrorName.FetchNetworkError,
  cancelled: executionErrorName.FetchCancelledError,
};

export interface FunctionFetch {
  fetch(url: unknown, init: unknown, signal: AbortSignal): Promise<HttpAnswer>;
  /** The run's requests so far, in order; one still in flight shows as cancelled (the run ended). */
  requests(): HttpRequestRecord[];
}

/**
 * One run's `fetch`: deny by default, only `allowedHosts` (each redirect too), every request
 * through the egress guard and its operator policy, at most `fetchLimits.requestsPerRun` of them.
 */
export function functionFetch(
  egress: EgressPolicy,
  allowedHosts: readonly string[],
  resolve?: Resolver,
): FunctionFetch {
  const started: { record: HttpRequestRecord; startedAt: number; ended: boolean }[] = [];
  const hostRefusal = (url: URL) =>
    hostAllowed(allowedHosts, url) ? undefined : "it is not in the function's allowedHosts";

  return {
    async fetch(rawUrl, rawInit, signal) {
      if (started.length >= fetchLimits.requestsPerRun) {
        const message = `This run made its ${fetchLimits.requestsPerRun} requests; no more are sent.`;
        throw new ServiceError(executionErrorName.FetchQuotaError, message);
      }
      const url = requestUrl(rawUrl);
      const request = requestInit(rawInit);
      const entry = {
        record: {
          method: request.method,
          host: bareHost(url),
          status: null,
          bytes: 0,
          durationMs: 0,
        } as HttpRequestRecord,
        startedAt: performance.now(),
        ended: false,
      };
      started.push(entry);
      const end = (status: number | null, bytes: number, error?: string) => {
        entry.ended = true;
        entry.record = {
          ...entry.record,
          status,
          bytes,
          durationMs: elapsed(entry.startedAt),
          ...(error ? { error } : {}),
        };
      };
      try {
        const answer = await egressFetch(
          egress,
          {
            url: url.href,
            method: request.method,
            headers: request.headers,
            body: request.body,
            timeoutMs: request.timeout,
            maxBytes: fetchLimits.maxResponseBytes,
            hostRefusal,
            signal,
          },
          resolve,
        );
        end(answer.status, answer.body.length);
        return { status: answer.status, headers: flatHeaders(answer.headers), body: answer.body.toString('utf8') };
      } catch (error) {
        const named = error instanceof EgressError ? new ServiceError(errorNames[error.reason], error.message) : error;
        end(null, 0, named instanceof Error ? named.name : 'Error');
        throw named;
      }
    },

    requests: () =>
      started.map(({ record, startedAt, ended }) =>
        ended ? record : { ...record, durationMs: elapsed(startedAt), error: errorNames.cancelled },
      ),
  };
}

const elapsed = (startedAt: number) => Math.round(performance.now() - startedAt);

function requestUrl(value: unknown): URL {
  if (typeof value !== 'string') throw new ServiceError('TypeError', 'fetch(url) needs the URL as a string.');
  if (value.length > fetchLimits.maxUrlChars) {
    throw new ServiceError('TypeError', `fetch(url) takes URLs of at most ${fetchLimits.maxUrlChars} characters.`);
  }
  const url = URL.parse(value);
  if (url?.protocol !== 'http:' && url?.protocol !== 'https:') {
    throw new ServiceError('TypeError', 'fetch(url) needs an absolute http or https URL.');
  }
  if (url.username || url.password) {
    throw new ServiceError('TypeError', 'fetch(url) takes no credentials in the URL: send them in a header.');
  }
  return url;
}

function requestInit(value: unknown) {
  const parsed = init.safeParse(value ?? {});
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const where = issue.path.length > 0 ? `${issue.path.map(String).join('.')} ` : '';
  throw new ServiceError('TypeError', `fetch(url, init): ${where}${issue.message}.`);
}

/** A header the server repeated (`set-cookie`) reads as its values joined, as the Fetch standard's `get` does. */
function flatHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) flat[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return flat;
}

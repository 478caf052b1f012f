import { lookup } from 'node:dns/promises';
import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import { bareHost, type EgressPolicy } from './egress-policy.ts';

export type EgressFailure =
  'refused' | 'not_allowed' | 'unreachable' | 'timeout' | 'cancelled' | 'too_large' | 'redirect';

/** Why a tenant's request did not get an answer; the message names the host, never the full URL. */
export class EgressError extends Error {
  readonly reason: EgressFailure;

  constructor(reason: EgressFailure, message: string) {
    super(message);
    this.name = 'EgressError';
    this.reason = reason;
  }
}

/** Methods a tenant's request may use; redirects are followed for the safe ones only. */
export const egressMethods = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
type EgressMethod = (typeof egressMethods)[number];

interface EgressRequest {
  url: string;
  method?: EgressMethod;
  headers?: Record<string, string>;
  body?: string;
  /** For the whole exchange: lookup, connect, every redirect, the last byte of the body. */
  timeoutMs: number;
  /** The largest body read; a longer one fails as `too_large` without being read to its end. */
  maxBytes: number;
  /** Redirects followed (GET and HEAD only), each through the same checks. */
  maxRedirects?: number;
  /**
   * Why the tenant did not allow this URL's host, the policy aside (a function's `allowedHosts`);
   * asked before each hop's lookup: a refused first URL is `not_allowed`, a refused redirect `redirect`.
   */
  hostRefusal?: (url: URL) => string | undefined;
  /** Aborted when nobody waits for the answer any more (the run that asked ended): the exchange stops. */
  signal?: AbortSignal;
}

export interface EgressResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

interface ResolvedAddress {
  address: string;
  family: number;
}

/** How a host name becomes addresses: the system's resolver, as any other program on the host. */
export type Resolver = (host: string) => Promise<ResolvedAddress[]>;

const systemResolver: Resolver = (host) => lookup(host, { all: true });

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/**
 * The one way the service reaches an address a tenant named. Each hop resolves the host once,
 * refuses it when any of its addresses is inside (so DNS cannot answer differently between the
 * check and the connection), and connects to the checked address.
 */
export async function egressFetch(
  policy: EgressPolicy,
  request: EgressRequest,
  resolve: Resolver = systemResolver,
): Promise<EgressResponse> {
  const timedOut = AbortSignal.timeout(request.timeoutMs);
  const deadline = request.signal ? AbortSignal.any([timedOut, request.signal]) : timedOut;
  const method = request.method ?? 'GET';
  const maxRedirects = method === 'GET' || method === 'HEAD' ? (request.maxRedirects ?? 3) : 0;
  let url = httpUrl(request.url);
  const firstRefusal = request.hostRefusal?.(url);
  if (firstRefusal) throw new EgressError('not_allowed', `${url.host} is not allowed: ${firstRefusal}`);
  for (let hop = 0; ; hop++) {
    const { host } = url;
    try {
      const target = await beforeDeadline(checkedAddress(policy, url, resolve), deadline);
      const response = await send(url, target, request, deadline);
      const location = response.headers.location;
      if (!REDIRECTS.has(response.status) || location === undefined) return response;
      if (hop >= maxRedirects) {
        throw new EgressError('redirect', `${host} answered a redirect (HTTP ${response.status}), not followed`);
      }
      url = httpUrl(new URL(location, url).href);
      const refusal = request.hostRefusal?.(url);
      if (refusal) throw new EgressError('redirect', `${host} redirected to ${url.host}, not followed: ${refusal}`);
    } catch (error) {
      throw failure(error, host, request, timedOut);
    }
  }
}

function httpUrl(text: string): URL {
  const url = URL.parse(text);
  if (url?.protocol !== 'http:' && url?.protocol !== 'https:') {
    throw new EgressError('refused', 'only http and https URLs are reached');
  }
  return url;
}

async function checkedAddress(policy: EgressPolicy, url: URL, resolve: Resolver): Promise<ResolvedAddress> {
  const host = bareHost(url);
  const literal = policy.literalRefusal(url);
  if (literal) throw new EgressError('refused', `${url.host} is refused: ${literal}`);
  if (isIP(host)) return { address: host, family: isIP(host) };
  const addresses = await resolve(host);
  if (addresses.length === 0) throw new EgressError('unreachable', `${url.host} has no address`);
  for (const { address } of addresses) {
    const refusal = policy.refusal(host, address);
    if (refusal) throw new EgressError('refused', `${url.host} is refused: ${refusal}`);
  }
  return addresses[0]!;
}

function beforeDeadline<T>(work: Promise<T>, deadline: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const abort = () => reject(new Error('deadline passed'));
    if (deadline.aborted) return abort();
    deadline.addEventListener('abort', abort, { once: true });
    work.then(resolve, reject).finally(() => deadline.removeEventListener('abort', abort));
  });
}

function send(url: URL, target: ResolvedAddress, request: EgressRequest, deadline: AbortSignal) {
  const host = bareHost(url);
  const tooLarge = () => new EgressError('too_large', `${url.host} answered more than ${request.maxBytes} bytes`);
  return new Promise<EgressResponse>((resolve, reject) => {
    const client = url.protocol === 'https:' ? https : http;
    const outgoing = client.request(
      {
        // The checked address, never the name again: the resolver is not asked a second time.
        host: target.address,
        family: target.family,
        port: url.port,
        path: `${url.pathname}${url.search}`,
        method: request.method ?? 'GET',
        headers: { ...request.headers, host: url.host },
        servername: isIP(host) ? undefined : host,
        agent: false,
        signal: deadline,
      },
      (incoming) => {
        const status = incoming.statusCode ?? 0;
        const answer = { status, headers: incoming.headers };
        if (REDIRECTS.has(status) || Number(incoming.headers['content-length']) > request.maxBytes) {
          incoming.destroy();
          if (REDIRECTS.has(status)) resolve({ ...answer, body: Buffer.alloc(0) });
          else reject(tooLarge());
          return;
        }
        const chunks: Buffer[] = [];
        let size = 0;
        incoming.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size <= request.maxBytes) return void chunks.push(chunk);
          incoming.destroy();
          reject(tooLarge());
        });
        incoming.on('end', () => resolve({ ...answer, body: Buffer.concat(chunks, size) }));
        incoming.on('error', reject);
      },
    );
    outgoing.on('error', reject);
    outgoing.end(request.body);
  });
}

function failure(error: unknown, host: string, request: EgressRequest, timedOut: AbortSignal): EgressError {
  if (error instanceof EgressError) return error;
  if (request.signal?.aborted) return new EgressError('cancelled', `the request to ${host} was cancelled`);
  if (timedOut.aborted) return new EgressError('timeout', `${host} did not answer within ${request.timeoutMs} ms`);
  const code = (error as { code?: unknown }).code;
  const cause = typeof code === 'string' ? code : error instanceof Error ? error.message : String(error);
  return new EgressError('unreachable', `${host} could not be reached: ${cause}`);
}

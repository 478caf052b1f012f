import { describe, expect, it } from 'vitest';
import { egressPolicy, parseEgressAllow } from '../../src/egress/egress-policy.ts';
import { allowedHosts, hostAllowed } from '../../src/functions/allowed-hosts.ts';
import { fetchLimits, functionFetch } from '../../src/functions/function-fetch.ts';
import type { SandboxServices } from '../../src/sandbox/types.ts';
import { fakeServices, resultOf, run } from '../support/sandbox.ts';

describe('allowedHosts', () => {
  it('reads names in lower case, addresses as a URL spells them, and *.suffix', () => {
    expect(
      allowedHosts.parse(['API.example.com', '*.Example.org', '[::1]', '0:0::2', '127.0.0.1', 'api.example.com']),
    ).toEqual(['api.example.com', '*.example.org', '::1', '::2', '127.0.0.1']);
  });

  it('refuses URLs, ports, bare or nested wildcards, empty labels and too many entries', () => {
    for (const entry of [
      'https://a.example',
      'a.example:443',
      '*',
      '*.*.a.example',
      'a..example',
      '-a.example',
      '',
      '*.1.2.3.4',
    ])
      expect(allowedHosts.safeParse([entry]).success, entry).toBe(false);
    expect(allowedHosts.safeParse(Array.from({ length: 51 }, (_, i) => `h${i}.example`)).success).toBe(false);
  });

  it('matches a URL host exactly, or strictly below a *. entry', () => {
    const hosts = allowedHosts.parse(['api.example.com', '*.prices.example', '::1']);
    const allowed = (url: string) => hostAllowed(hosts, new URL(url));
    expect(allowed('https://API.example.com./v1')).toBe(true);
    expect(allowed('https://a.b.prices.example/')).toBe(true);
    expect(allowed('http://[::1]:8080/')).toBe(true);
    expect(allowed('https://prices.example/')).toBe(false);
    expect(allowed('https://evilprices.example/')).toBe(false);
    expect(allowed('https://api.example.com.evil.example/')).toBe(false);
    expect(allowed('https://other.example.com/')).toBe(false);
  });
});

describe('context.services.http.fetch in the sandbox', () => {
  it('gives status, ok, headers, text() and json() of what the host answered', async () => {
    const calls: unknown[][] = [];
    const code = `module.exports = async ({ services }) => {
      const response = await services.http.fetch('https://api.example.com/p', { method: 'POST', body: '{}' });
      return { status: response.status, ok: response.ok, headers: response.headers, text: await response.text(), json: await response.json() };
    };`;
    expect(await resultOf(code, { services: fakeServices(calls) })).toEqual({
      status: 200,
      ok: true,
      headers: { 'content-type': 'application/json' },
      text: '{"url":"https://api.example.com/p"}',
      json: { url: 'https://api.example.com/p' },
    });
    expect(calls).toEqual([['fetch', 'https://api.example.com/p', { method: 'POST', body: '{}' }]]);
  });

  it('counts fetch among the calls to context.services', async () => {
    const code = `module.exports = async ({ services }) => {
      services.random.uuid();
      await services.http.fetch('https://api.example.com/');
      await services.http.fetch('https://api.example.com/');
    };`;
    const outcome = await run(code, { maxServiceCalls: 2 });
    expect(outcome).toMatchObject({ status: 'failed', error: { name: 'ServiceQuotaError' } });
  });

  it("carries the name of the service's own errors, and stops a fetch in flight when the run ends", async () => {
    const signals: AbortSignal[] = [];
    const services: SandboxServices = {
      ...fakeServices(),
      http: {
        fetch: (_url, _init, signal) => {
          signals.push(signal);
          return new Promise(() => undefined);
        },
      },
    };
    const code = `module.exports = async ({ services }) => { services.http.fetch('https://a.example/'); await new Promise(() => {}); };`;
    expect(await run(code, { services, timeoutMs: 300 })).toMatchObject({
      status: 'failed',
      error: { name: 'TimeoutError' },
    });
    expect(signals).toHaveLength(1);
    expect(signals[0]!.aborted).toBe(true);
  });
});

describe('a run’s fetch (function-fetch.ts), before any request leaves', () => {
  const denyInside = egressPolicy(parseEgressAllow(''));
  const noLookup = async () => {
    throw new Error('no lookup expected');
  };
  const signal = new AbortController().signal;

  it('refuses a host not listed with HostNotAllowedError, and records it', async () => {
    const http = functionFetch(denyInside, ['api.example.com'], noLookup);
    await expect(http.fetch('https://other.example/x?key=1', undefined, signal)).rejects.toMatchObject({
      name: 'HostNotAllowedError',
      message: "other.example is not allowed: it is not in the function's allowedHosts",
    });
    expect(http.requests()).toEqual([
      {
        method: 'GET',
        host: 'other.example',
        status: null,
        bytes: 0,
        durationMs: expect.any(Number),
        error: 'HostNotAllowedError',
      },
    ]);
  });

  it('refuses an address inside with EgressRefusedError though listed, and the eleventh request with FetchQuotaError', async () => {
    const http = functionFetch(denyInside, ['10.0.0.7'], noLookup);
    for (let i = 0; i < fetchLimits.requestsPerRun; i++)
      await expect(http.fetch('http://10.0.0.7/', null, signal)).rejects.toMatchObject({ name: 'EgressRefusedError' });
    await expect(http.fetch('http://10.0.0.7/', null, signal)).rejects.toMatchObject({
      name: 'FetchQuotaError',
      message: 'This run made its 10 requests; no more are sent.',
    });
    expect(http.requests()).toHaveLength(10);
  });

  it.each([
    [42, 'fetch(url) needs the URL as a string.'],
    ['/relative', 'fetch(url) needs an absolute http or https URL.'],
    ['file:///etc/passwd', 'fetch(url) needs an absolute http or https URL.'],
    ['https://user:pw@api.example.com/', 'fetch(url) takes no credentials in the URL: send them in a header.'],
    [`https://api.example.com/${'a'.repeat(2048)}`, 'fetch(url) takes URLs of at most 2048 characters.'],
  ])('refuses the URL %s with TypeError', async (url, message) => {
    const http = functionFetch(denyInside, ['api.example.com'], noLookup);
    await expect(http.fetch(url, undefined, signal)).rejects.toMatchObject({ name: 'TypeError', message });
    expect(http.requests()).toEqual([]);
  });

  it.each([
    [{ method: 'CONNECT' }, 'method must be one of GET, HEAD, POST, PUT, PATCH, DELETE'],
    [{ headers: { Host: 'internal' } }, 'headers.Host is set by the service itself'],
    [{ headers: { 'x-a': 'b\r\nx-b: c' } }, 'headers.x-a values must not hold line breaks'],
    [{ headers: { 'x a': 'b' } }, 'headers.x a is not an HTTP token'],
    [{ body: { a: 1 }, method: 'POST' }, 'body must be a string (JSON.stringify an object)'],
    [{ body: 'x' }, 'a GET or HEAD request has no body'],
    [{ timeout: 10_001 }, 'timeout must be at most 10000 ms'],
    [{ redirect: 'manual' }, 'Unrecognized key: "redirect"'],
  ])('refuses the init %j with TypeError', async (init, message) => {
    const http = functionFetch(denyInside, ['api.example.com'], noLookup);
    await expect(http.fetch('https://api.example.com/', init, signal)).rejects.toMatchObject({
      name: 'TypeError',
      message: expect.stringContaining(message),
    });
  });
});

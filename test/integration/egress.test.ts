import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { egressFetch, EgressError, type Resolver } from '../../src/egress/egress-fetch.ts';
import { egressPolicy, parseEgressAllow } from '../../src/egress/egress-policy.ts';
import { closeServer } from '../support/close-server.ts';

/** A server on loopback standing for an internal service: it counts what reaches it. */
interface Internal {
  port: number;
  requests: IncomingMessage[];
  /** Bytes the 32 MiB route managed to write before the client went away. */
  bigWritten(): number;
  close(): Promise<void>;
}

const MiB = 1024 * 1024;

async function startInternal(): Promise<Internal> {
  const requests: IncomingMessage[] = [];
  let bigWritten = 0;
  const routes: Record<string, (response: ServerResponse) => void> = {
    '/secret': (response) => response.end('{"price": 42}'),
    '/big': (response) => {
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      const write = () => {
        while (bigWritten < 32 * MiB) {
          bigWritten += chunk.length;
          if (!response.write(chunk)) return void response.once('drain', write);
        }
        response.end();
      };
      response.on('close', () => response.destroy());
      write();
    },
    '/declared-big': (response) => {
      response.setHeader('content-length', String(32 * MiB));
      response.write('{');
    },
    '/slow': (response) => {
      const drip = setInterval(() => response.write(' '), 50);
      response.on('close', () => clearInterval(drip));
    },
  };
  const server: Server = createServer((request, response) => {
    requests.push(request);
    const url = new URL(request.url ?? '/', 'http://internal');
    const redirect = url.searchParams.get('to');
    if (url.pathname === '/redirect' && redirect) {
      response.writeHead(302, { location: redirect }).end();
      return;
    }
    (routes[url.pathname] ?? ((r: ServerResponse) => r.writeHead(404).end()))(response);
  });
  await new Promise<void>((resolveListen) => server.listen(0, '::', resolveListen));
  return {
    port: (server.address() as AddressInfo).port,
    requests,
    bigWritten: () => bigWritten,
    close: () => closeServer(server),
  };
}

let internal: Internal;
beforeAll(async () => {
  internal = await startInternal();
});
afterAll(() => internal.close());

const denyAll = egressPolicy(parseEgressAllow(''));
/** Names the tests resolve themselves: nothing asks the machine's DNS. */
const names: Record<string, string[]> = {
  'inside.example': ['10.0.0.7'],
  'mixed.example': ['93.184.215.14', '192.168.1.20'],
  'prices.example': ['127.0.0.1'],
};
const resolver: Resolver = async (host) => (names[host] ?? []).map((address) => ({ address, family: 4 }));

async function refusal(attempt: Promise<unknown>) {
  const error = await attempt.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(EgressError);
  return error as EgressError;
}

const get = (url: string, policy = denyAll, maxBytes = 64 * 1024) =>
  egressFetch(policy, { url, timeoutMs: 5_000, maxBytes }, resolver);

describe('the egress guard', () => {
  it.each([
    ['127.0.0.1', (port: number) => `http://127.0.0.1:${port}/secret`],
    ['127.1 (short form)', (port: number) => `http://127.1:${port}/secret`],
    ['2130706433 (one number)', (port: number) => `http://2130706433:${port}/secret`],
    ['0x7f.0.0.1 (hexadecimal)', (port: number) => `http://0x7f.0.0.1:${port}/secret`],
    ['0.0.0.0', (port: number) => `http://0.0.0.0:${port}/secret`],
    ['[::1]', (port: number) => `http://[::1]:${port}/secret`],
    ['[::ffff:127.0.0.1] (IPv4-mapped)', (port: number) => `http://[::ffff:127.0.0.1]:${port}/secret`],
    ['[::] (unspecified)', (port: number) => `http://[::]:${port}/secret`],
    ['localhost', (port: number) => `http://localhost:${port}/secret`],
    ['LOCALHOST. (case, trailing dot)', (port: number) => `http://LOCALHOST.:${port}/secret`],
    ['api.localhost', (port: number) => `http://api.localhost:${port}/secret`],
  ])('refuses loopback written as %s before connecting', async (_form, url) => {
    const before = internal.requests.length;
    const error = await refusal(get(url(internal.port)));
    expect(error.reason).toBe('refused');
    expect(internal.requests.length).toBe(before);
  });

  it.each([
    ['cloud metadata', 'http://169.254.169.254/latest/meta-data/'],
    ['a private network', 'http://10.1.2.3/'],
    ['a private network (172.16/12)', 'http://172.20.0.1/'],
    ['a private network (192.168/16)', 'http://192.168.0.1/'],
    ['carrier-grade NAT', 'http://100.64.0.1/'],
    ['a unique-local IPv6 address (AWS metadata)', 'http://[fd00:ec2::254]/'],
    ['a link-local IPv6 address', 'http://[fe80::1]/'],
    ['NAT64 of loopback', 'http://[64:ff9b::7f00:1]/'],
  ])('refuses %s', async (_what, url) => {
    expect((await refusal(get(url))).reason).toBe('refused');
  });

  it('refuses a name that resolves inside, and a name with any address inside', async () => {
    const inside = await refusal(get('http://inside.example/price'));
    expect(inside.reason).toBe('refused');
    expect(inside.message).toBe(
      `inside.example is refused: inside.example resolves to 10.0.0.7, inside the service's network`,
    );
    expect((await refusal(get('http://mixed.example/price'))).reason).toBe('refused');
  });

  it('connects to the address it checked, sending the name as Host, when the name is allowed', async () => {
    const allowed = egressPolicy(parseEgressAllow('prices.example'));
    const response = await get(`http://prices.example:${internal.port}/secret`, allowed);
    expect(response.status).toBe(200);
    expect(response.body.toString()).toBe('{"price": 42}');
    expect(internal.requests.at(-1)!.headers.host).toBe(`prices.example:${internal.port}`);
  });

  it('allows addresses inside only through NEOFLOW_EGRESS_ALLOW ranges', async () => {
    const loopback = egressPolicy(parseEgressAllow('127.0.0.0/8'));
    expect((await get(`http://127.1:${internal.port}/secret`, loopback)).status).toBe(200);
    const other = egressPolicy(parseEgressAllow('10.0.0.0/8, ::1'));
    expect((await refusal(get(`http://127.0.0.1:${internal.port}/secret`, other))).reason).toBe('refused');
    expect((await get(`http://[::1]:${internal.port}/secret`, other)).status).toBe(200);
  });

  it('follows a redirect only through the same checks: one to loopback is refused, unread', async () => {
    const allowed = egressPolicy(parseEgressAllow('prices.example'));
    const before = internal.requests.length;
    const target = encodeURIComponent(`http://127.0.0.1:${internal.port}/secret`);
    const error = await refusal(get(`http://prices.example:${internal.port}/redirect?to=${target}`, allowed));
    expect(error.reason).toBe('refused');
    expect(internal.requests.slice(before).map((request) => request.url)).toEqual([`/redirect?to=${target}`]);
  });

  it('follows an allowed redirect, and at most three', async () => {
    const allowed = egressPolicy(parseEgressAllow('prices.example'));
    const hop = (to: string) => `http://prices.example:${internal.port}/redirect?to=${encodeURIComponent(to)}`;
    const secret = `http://prices.example:${internal.port}/secret`;
    expect((await get(hop(hop(hop(secret))), allowed)).status).toBe(200);
    expect((await refusal(get(hop(hop(hop(hop(secret)))), allowed))).reason).toBe('redirect');
  });

  it('stops reading a 32 MiB body at the cap, without reading it to its end', async () => {
    const loopback = egressPolicy(parseEgressAllow('127.0.0.1'));
    const error = await refusal(get(`http://127.0.0.1:${internal.port}/big`, loopback));
    expect(error.reason).toBe('too_large');
    expect(error.message).toBe(`127.0.0.1:${internal.port} answered more than 65536 bytes`);
    await expect.poll(() => internal.requests.at(-1)!.socket.destroyed).toBe(true);
    expect(internal.bigWritten()).toBeLessThan(32 * MiB);
  });

  it('refuses a body declared larger than the cap before reading any of it', async () => {
    const loopback = egressPolicy(parseEgressAllow('127.0.0.1'));
    expect((await refusal(get(`http://127.0.0.1:${internal.port}/declared-big`, loopback))).reason).toBe('too_large');
  });

  it('gives up at the deadline on a source that drips its answer', async () => {
    const loopback = egressPolicy(parseEgressAllow('127.0.0.1'));
    const attempt = egressFetch(
      loopback,
      { url: `http://127.0.0.1:${internal.port}/slow`, timeoutMs: 300, maxBytes: 64 * 1024 },
      resolver,
    );
    const error = await refusal(attempt);
    expect(error.reason).toBe('timeout');
    expect(error.message).toBe(`127.0.0.1:${internal.port} did not answer within 300 ms`);
  });

  it("asks the caller's hostRefusal before the first hop and each redirect: refused, never requested", async () => {
    const allowed = egressPolicy(parseEgressAllow('prices.example'));
    const onlyPrices = (url: URL) => (url.hostname === 'prices.example' ? undefined : 'not listed');
    const request = (url: string) =>
      egressFetch(allowed, { url, timeoutMs: 5_000, maxBytes: 64 * 1024, hostRefusal: onlyPrices }, resolver);
    const before = internal.requests.length;
    const first = await refusal(request(`http://other.example:${internal.port}/secret`));
    expect(first).toMatchObject({
      reason: 'not_allowed',
      message: `other.example:${internal.port} is not allowed: not listed`,
    });
    const target = encodeURIComponent(`http://mixed.example:${internal.port}/secret`);
    const redirected = await refusal(request(`http://prices.example:${internal.port}/redirect?to=${target}`));
    expect(redirected.reason).toBe('redirect');
    expect(redirected.message).toContain(`redirected to mixed.example:${internal.port}, not followed: not listed`);
    expect(internal.requests.slice(before).map((r) => r.url)).toEqual([`/redirect?to=${target}`]);
  });

  it('follows no redirect of a PUT, and stops when the caller aborts', async () => {
    const loopback = egressPolicy(parseEgressAllow('127.0.0.1'));
    const to = encodeURIComponent(`http://127.0.0.1:${internal.port}/secret`);
    const put = egressFetch(
      loopback,
      {
        url: `http://127.0.0.1:${internal.port}/redirect?to=${to}`,
        method: 'PUT',
        body: '{}',
        timeoutMs: 5_000,
        maxBytes: 1024,
      },
      resolver,
    );
    expect((await refusal(put)).reason).toBe('redirect');
    const caller = new AbortController();
    const slow = egressFetch(
      loopback,
      { url: `http://127.0.0.1:${internal.port}/slow`, timeoutMs: 30_000, maxBytes: 64 * 1024, signal: caller.signal },
      resolver,
    );
    caller.abort();
    expect(await refusal(slow)).toMatchObject({
      reason: 'cancelled',
      message: `the request to 127.0.0.1:${internal.port} was cancelled`,
    });
  });

  it('never names more of the URL than its host', async () => {
    const error = await refusal(get('http://inside.example/p?apiKey=hunter2'));
    expect(error.message).not.toContain('hunter2');
  });
});

describe('NEOFLOW_EGRESS_ALLOW', () => {
  it('reads host names, addresses and CIDR ranges', () => {
    expect(parseEgressAllow(' prices.internal , 10.0.0.0/8,::1, [fd00::]/8 ')).toEqual({
      hosts: ['prices.internal'],
      ranges: [
        { address: '10.0.0.0', prefix: 8, family: 'ipv4' },
        { address: '::1', prefix: 128, family: 'ipv6' },
        { address: 'fd00::', prefix: 8, family: 'ipv6' },
      ],
    });
  });

  it.each(['10.0.0.0/33', 'http://x', 'a b', '::1/129'])('refuses %s, naming it', (entry) => {
    expect(() => parseEgressAllow(entry)).toThrow(entry);
  });
});

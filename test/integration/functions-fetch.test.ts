import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApi } from '../support/api.ts';
import { testApi, type ApiCall } from '../support/http.ts';
import { issueKey } from '../support/keys.ts';
import { startApiWithWorker, type RunningWorker } from '../support/worker.ts';
import { closeServer } from '../support/close-server.ts';

/**
 * `context.services.http.fetch` through the egress guard, invoked synchronously through the API:
 * run eagerly in the API's process (which hosts a worker, as `neoflow api` does), and run by a
 * worker process alone. Both allow loopback (`NEOFLOW_EGRESS_ALLOW=127.0.0.1`, the tests' default),
 * where the test's server answers; every other inside address stays refused.
 */

const MiB = 1024 * 1024;
const secretValue = 'sk-live-4f9a1c7e2b8d';

interface Origin {
  url: string;
  /** Paths requested, in order. */
  seen: string[];
  close(): Promise<void>;
}

async function startOrigin(): Promise<Origin> {
  const seen: string[] = [];
  const server: Server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://origin');
    seen.push(url.pathname);
    const json = (value: unknown) =>
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(value));
    if (url.pathname === '/price') return json({ pair: 'NEO/USD', price: 42.5 });
    if (url.pathname === '/echo') {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => json({ method: request.method, authorization: request.headers.authorization, body }));
      return;
    }
    if (url.pathname === '/redirect') return response.writeHead(302, { location: url.searchParams.get('to')! }).end();
    if (url.pathname === '/big') return response.end(Buffer.alloc(2 * MiB, 0x61));
    if (url.pathname === '/slow') {
      const drip = setInterval(() => response.write(' '), 100);
      return response.on('close', () => clearInterval(drip));
    }
    response.writeHead(404).end();
  });
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: () => closeServer(server),
  };
}

let origin: Origin;
beforeAll(async () => {
  origin = await startOrigin();
});
afterAll(() => origin.close());

/** Fetches `params.url` with `params.init`, `params.times` times (once by default), answering the last JSON. */
const fetching = `module.exports = async (context) => {
  const { url, init, times = 1 } = context.params;
  let response;
  for (let i = 0; i < times; i++) response = await context.services.http.fetch(url, init);
  return { status: response.status, type: response.headers['content-type'], body: await response.json() };
};`;

describe.each([
  ['eagerly in the API process', true],
  ['in a worker process', false],
])('fetch, invoked synchronously %s', (_where, hostWorker) => {
  let api: TestApi;
  let worker: RunningWorker;
  let call: ApiCall;
  let fnId: string;
  beforeAll(async () => {
    ({ api, worker } = await startApiWithWorker({ hostWorker }));
    call = testApi(api.url, (await issueKey(api.database.orm)).key);
    const secret = await call('POST', '/secrets', { name: 'PRICE_KEY', value: secretValue });
    expect(secret.status).toBe(201);
    const created = await call('POST', '/functions', {
      name: 'fetcher',
      code: fetching,
      runtime: 'node18',
      secrets: ['PRICE_KEY'],
      allowedHosts: ['127.0.0.1', '10.1.2.3', '*.neoflow.test'],
    });
    expect(created.status).toBe(201);
    expect(created.body.data.allowedHosts).toEqual(['127.0.0.1', '10.1.2.3', '*.neoflow.test']);
    fnId = created.body.data.id;
  });
  afterAll(async () => {
    await worker.stop();
    await api.close();
  });

  const invoke = (params: Record<string, unknown>) => call('POST', `/functions/${fnId}/invoke`, { params });
  const details = async (executionId: string): Promise<Record<string, any>> =>
    (await call('GET', `/functions/${fnId}/executions/${executionId}`)).body.data as Record<string, any>;
  /** The run's failure: its error's name and message, and the execution's record. */
  const failure = async (params: Record<string, unknown>) => {
    const invoked = await invoke(params);
    expect(invoked.status).toBe(500);
    const error = invoked.body.error!.details as { name: string; message: string; executionId: string };
    return { ...error, record: await details(error.executionId) };
  };

  it("returns the loopback server's JSON, and the execution records the request", async () => {
    const invoked = await invoke({ url: `${origin.url}/price?pair=neo` });
    expect(invoked.status).toBe(200);
    expect(invoked.body.data.result).toEqual({
      status: 200,
      type: 'application/json',
      body: { pair: 'NEO/USD', price: 42.5 },
    });
    const record = await details(invoked.body.data.execution.id);
    expect(record.httpRequests).toEqual([
      { method: 'GET', host: '127.0.0.1', status: 200, bytes: 31, durationMs: expect.any(Number) },
    ]);
  });

  it('fails with HostNotAllowedError for a host the function does not list, and never reaches it', async () => {
    const before = origin.seen.length;
    const refused = await failure({ url: `http://localhost:${new URL(origin.url).port}/price` });
    expect(refused).toMatchObject({ name: 'HostNotAllowedError', message: expect.stringContaining('localhost') });
    expect(origin.seen.length).toBe(before);
    expect(refused.record.httpRequests).toEqual([
      {
        method: 'GET',
        host: 'localhost',
        status: null,
        bytes: 0,
        durationMs: expect.any(Number),
        error: 'HostNotAllowedError',
      },
    ]);
  });

  it('fails with RedirectNotAllowedError for a redirect to a host off the list', async () => {
    const to = encodeURIComponent(`http://localhost:${new URL(origin.url).port}/price`);
    const refused = await failure({ url: `${origin.url}/redirect?to=${to}` });
    expect(refused).toMatchObject({ name: 'RedirectNotAllowedError', message: expect.stringContaining('localhost') });
  });

  it('follows a redirect to a listed host', async () => {
    const invoked = await invoke({ url: `${origin.url}/redirect?to=${encodeURIComponent(`${origin.url}/price`)}` });
    expect(invoked.status).toBe(200);
    expect(invoked.body.data.result.body).toEqual({ pair: 'NEO/USD', price: 42.5 });
  });

  it('fails with EgressRefusedError for a private address, even one the function lists', async () => {
    const refused = await failure({ url: 'http://10.1.2.3/price' });
    expect(refused).toMatchObject({ name: 'EgressRefusedError', message: expect.stringContaining('10.1.2.3') });
  });

  it('fails with ResponseTooLargeError for an answer over 1 MiB', async () => {
    const refused = await failure({ url: `${origin.url}/big` });
    expect(refused).toMatchObject({ name: 'ResponseTooLargeError', message: expect.stringContaining('1048576') });
  });

  it('fails the eleventh request of a run with FetchQuotaError', async () => {
    const ten = await invoke({ url: `${origin.url}/price`, times: 10 });
    expect(ten.status).toBe(200);
    const refused = await failure({ url: `${origin.url}/price`, times: 11 });
    expect(refused).toMatchObject({ name: 'FetchQuotaError', message: expect.stringContaining('10 requests') });
    expect(refused.record.httpRequests).toHaveLength(10);
  });

  it('fails with FetchTimeoutError past the request timeout', async () => {
    const refused = await failure({ url: `${origin.url}/slow`, init: { timeout: 300 } });
    expect(refused).toMatchObject({ name: 'FetchTimeoutError', message: expect.stringContaining('300 ms') });
  });

  it('masks a secret sent in a header in every record: logs, error and requests', async () => {
    const code = `module.exports = async (context) => {
      const key = await context.secrets.get('PRICE_KEY');
      const response = await context.services.http.fetch(context.params.url, {
        method: 'POST', headers: { authorization: 'Bearer ' + key }, body: JSON.stringify({ key }),
      });
      const echoed = await response.json();
      context.log.info('echoed', echoed);
      throw new Error('server saw ' + echoed.authorization);
    };`;
    const updated = await call('PUT', `/functions/${fnId}`, { code });
    expect(updated.status).toBe(200);
    const refused = await failure({ url: `${origin.url}/echo` });
    expect(refused.message).toBe('server saw Bearer [secret:PRICE_KEY]');
    expect(refused.record.httpRequests).toEqual([
      { method: 'POST', host: '127.0.0.1', status: 200, bytes: expect.any(Number), durationMs: expect.any(Number) },
    ]);
    expect(refused.record.logs).toEqual([
      expect.objectContaining({ message: expect.stringContaining('[secret:PRICE_KEY]') }),
    ]);
    expect(JSON.stringify(refused.record)).not.toContain(secretValue);
    await call('PUT', `/functions/${fnId}`, { code: fetching });
  });
});

describe('allowedHosts', () => {
  let api: TestApi;
  let key: string;
  beforeAll(async () => {
    const { startTestApi } = await import('../support/api.ts');
    api = await startTestApi();
    ({ key } = await issueKey(api.database.orm));
  });
  afterAll(() => api.close());

  it('defaults to none, is normalised, and refuses entries that are not a host or *.suffix with 400', async () => {
    const call = testApi(api.url, key);
    const plain = await call('POST', '/functions', { name: 'plain', code: fetching, runtime: 'node18' });
    expect(plain.body.data.allowedHosts).toEqual([]);
    const updated = await call('PUT', `/functions/${plain.body.data.id}`, {
      allowedHosts: ['API.Example.com', '*.Example.org'],
    });
    expect(updated.body.data.allowedHosts).toEqual(['api.example.com', '*.example.org']);
    for (const entry of [
      'https://api.example.com',
      'api.example.com:443',
      '*',
      '*.com.',
      'a..b',
      '*.*.example.com',
      '',
    ]) {
      const refused = await call('PUT', `/functions/${plain.body.data.id}`, { allowedHosts: [entry] });
      expect(refused.status, entry).toBe(400);
      expect(refused.body.error).toMatchObject({ code: 'invalid_request' });
    }
  });
});

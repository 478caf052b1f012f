import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNeoRpc } from '../../src/chain/rpc.ts';
import { startTestApi, type TestApi } from '../support/api.ts';
import { answerDrifts } from '../support/answer-check.ts';
import { issueKey } from '../support/keys.ts';
import { until } from '../support/polling.ts';

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.close());

describe('wire basics', () => {
  it('answers liveness from the process alone while readiness reports a Neo node that is down', async () => {
    const { neo } = api.services;
    // Nothing listens on port 9 (discard): the node is down as far as this API can tell.
    Object.assign(api.services, { neo: createNeoRpc('http://127.0.0.1:9', { timeoutMs: 500 }) });
    try {
      const health = await fetch(`${api.url}/v1/health`);
      expect(health.status).toBe(503);
      expect(await health.json()).toMatchObject({ status: 'degraded', neo: { status: 'down' } });
      const live = await fetch(`${api.url}/v1/livez`);
      expect(live.status).toBe(200);
      expect(await live.json()).toEqual({ status: 'ok' });
      expect(live.headers.get('RateLimit-Limit')).toBeNull();
    } finally {
      Object.assign(api.services, { neo });
    }
  });

  it('reports PostgreSQL, Temporal and Neo healthy, without a key', async () => {
    // The report is kept for a second: the test before left a degraded one, so wait for a new one.
    const response = await until(
      () => fetch(`${api.url}/v1/health`),
      (answer) => answer.status !== 503,
      10_000,
      200,
    );
    expect(response.status).toBe(200);
    const body = (await response.json()) as { postgres: { latencyMs: number } };
    expect(body).toMatchObject({
      status: 'ok',
      postgres: { status: 'ok' },
      temporal: { status: 'ok' },
      neo: { status: 'ok', blockHeight: expect.any(Number) },
    });
    expect(body.postgres.latencyMs).toBeGreaterThanOrEqual(0);
  });

  it('echoes a valid X-Request-Id and mints one otherwise', async () => {
    const echoed = await fetch(`${api.url}/v1/health`, { headers: { 'X-Request-Id': 'trace-42.a:b' } });
    expect(echoed.headers.get('x-request-id')).toBe('trace-42.a:b');
    const minted = await fetch(`${api.url}/v1/health`, { headers: { 'X-Request-Id': 'bad id with spaces' } });
    expect(minted.headers.get('x-request-id')).toMatch(/^req_[A-Za-z0-9_-]{24}$/);
    const errored = await fetch(`${api.url}/v1/nowhere`);
    expect(errored.headers.get('x-request-id')).toMatch(/^req_/);
  });

  it('answers an unknown path with 404 not_found in the functions shape', async () => {
    const response = await fetch(`${api.url}/v1/nowhere`);
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({
      success: false,
      error: { code: 'not_found', message: expect.any(String), details: {} },
    });
  });

  it('answers unknown paths and wrong methods inside the automations and secrets areas in that shape too', async () => {
    const { key } = await issueKey(api.database.orm);
    const headers = { 'X-API-Key': key };
    const unknown = await fetch(`${api.url}/v1/automations/auto_x/nowhere`, { headers });
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({
      success: false,
      error: { code: 'not_found', message: expect.any(String), details: {} },
    });
    const wrongMethod = await fetch(`${api.url}/v1/secrets`, { method: 'PATCH', headers });
    expect(wrongMethod.status).toBe(405);
    expect(await wrongMethod.json()).toMatchObject({ success: false, error: { code: 'method_not_allowed' } });
  });

  it('answers a known path with a wrong method with 405 and Allow', async () => {
    const response = await fetch(`${api.url}/v1/health`, { method: 'DELETE' });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toContain('GET');
    expect(await response.json()).toMatchObject({ success: false, error: { code: 'method_not_allowed' } });
  });

  it('rejects a body that is not JSON with 400 invalid_request', async () => {
    const response = await fetch(`${api.url}/v1/health`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: '{"name": ',
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ success: false, error: { code: 'invalid_request' } });
  });

  it('refuses a body nested deeper than 64 levels with 400 saying so, in the area shape', async () => {
    const { key } = await issueKey(api.database.orm);
    const nested = (depth: number) => `{"params":{"a":${'['.repeat(depth - 2)}${']'.repeat(depth - 2)}}}`;
    const send = (path: string, body: string) =>
      fetch(`${api.url}/v1${path}`, {
        method: 'POST',
        headers: { 'X-API-Key': key, 'Content-Type': 'application/json' },
        body,
      });
    for (const [path, code] of [
      ['/functions/func_missing/invoke', 'invalid_request'],
      ['/automations', 'INVALID_REQUEST'],
    ]) {
      const refused = await send(path!, nested(65));
      expect(refused.status).toBe(400);
      const { error } = (await refused.json()) as { error: { code: string; message: string } };
      expect(error).toMatchObject({ code, message: expect.stringContaining('64 levels') });
    }
    expect((await send('/functions/func_missing/invoke', nested(64))).status).toBe(404);
  });

  it('rejects a body over 1 MiB with 413 payload_too_large', async () => {
    const response = await fetch(`${api.url}/v1/health`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ code: 'x'.repeat(1024 * 1024) }),
    });
    expect(response.status).toBe(413);
    expect(await response.json()).toMatchObject({ success: false, error: { code: 'payload_too_large' } });
  });

  it('bounds a body sent to a route that takes none, answering the 413 the document declares for every route', async () => {
    // fetch refuses a body on GET; a client of its own need not. The server answers on the declared
    // length, before reading: the rest of the body may meet a closed socket, which is no failure.
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const request = httpRequest(`${api.url}/v1/livez`, {
        method: 'GET',
        headers: { 'Content-Type': 'application/json', 'Content-Length': String(2 * 1024 * 1024) },
      });
      request.on('response', (response) => {
        let body = '';
        response.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
        response.on('end', () => resolve({ status: response.statusCode!, body }));
      });
      request.on('error', reject);
      request.write('{"code": "');
    });
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.body)).toMatchObject({ success: false, error: { code: 'payload_too_large' } });
    expect(answerDrifts).toEqual([]);
  });

  it('rejects a streamed body that grows past 1 MiB with 413', async () => {
    const chunk = new TextEncoder().encode('x'.repeat(64 * 1024));
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent++ < 20) controller.enqueue(chunk);
        else controller.close();
      },
    });
    const response = await fetch(`${api.url}/v1/health`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body,
      duplex: 'half',
    });
    expect(response.status).toBe(413);
  });
});

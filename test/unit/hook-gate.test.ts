import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { hookGate } from '../../src/automations/hooks/hook-gate.routes.ts';
import { newHookPath } from '../../src/automations/hooks/hook-credentials.ts';
import { createLogger } from '../../src/log.ts';

const rate = { requests: 1, windowSeconds: 3600 };
const log = createLogger('hook-gate-test', 'error');

/** Hands one request to the gate; what it answered, if it did. */
function send(gate: ReturnType<typeof hookGate>, method: string, url: string, headers: IncomingHttpHeaders = {}) {
  const sent: { status?: number; headers?: Record<string, string>; body?: Buffer } = {};
  const response = {
    writeHead(status: number, written: Record<string, string>) {
      Object.assign(sent, { status, headers: written });
      return response;
    },
    end(body: Buffer) {
      sent.body = body;
    },
  };
  const refused = gate({ method, url, headers } as IncomingMessage, response as unknown as ServerResponse);
  return { refused, ...sent };
}

describe('the hook gate', () => {
  it("refuses a hook's path past its bucket in every form of target the router takes, and lets the rest through", () => {
    const gate = hookGate(rate, log);
    const path = newHookPath();
    expect(send(gate, 'POST', `/v1/hooks/${path}`).refused).toBe(false);
    for (const target of [
      `/v1/hooks/${path}`,
      `/v1/hooks/${path}/`,
      `/v1/hooks/${path}?source=ci`,
      `/v1/hooks/${path.replace('_', '%5F')}`,
      `http://neoflow.example/v1/hooks/${path}`,
    ]) {
      expect(send(gate, 'POST', target).refused, target).toBe(true);
    }
    for (const [method, target] of [
      ['GET', `/v1/hooks/${path}`],
      ['POST', `/v1/hooks/${path}/more`],
      ['POST', `/v1/automations/${path}`],
      ['POST', '/v1/hooks/%E0%A4%A'],
    ] as const) {
      expect(send(gate, method, target).refused, `${method} ${target}`).toBe(false);
    }
  });

  it('answers 429 with Retry-After, its length and type, the request id, and the general error envelope', () => {
    const gate = hookGate(rate, log);
    const url = `/v1/hooks/${newHookPath()}`;
    send(gate, 'POST', url);
    const named = send(gate, 'POST', url, { 'x-request-id': 'req-from-client' });
    expect(named.status).toBe(429);
    const wait = Number(named.headers!['Retry-After']);
    expect(wait).toBeGreaterThanOrEqual(1);
    expect(named.headers).toEqual({
      'Retry-After': String(wait),
      'Content-Type': 'application/json; charset=utf-8',
      'Content-Length': String(named.body!.length),
      'X-Request-Id': 'req-from-client',
    });
    expect(JSON.parse(named.body!.toString('utf8'))).toEqual({
      success: false,
      error: {
        code: 'rate_limit_exceeded',
        message: `Requests to this hook are over the rate of 1 per 3600 s; retry in ${wait} s.`,
        details: { limit: 1, windowSeconds: 3600, retryAfter: wait },
      },
    });
    expect(send(gate, 'POST', url, { 'x-request-id': 'bad id!' }).headers!['X-Request-Id']).toMatch(/^req_/);
  });

  it("answers a path of no hook's shape with the route's 404 before its body, whatever the bucket", () => {
    const gate = hookGate(rate, log);
    for (const target of ['/v1/hooks/not-a-hook-path', '/v1/hooks/not-a-hook-path', '/v1/hooks/hk_short?x=1']) {
      const answer = send(gate, 'POST', target, { 'x-request-id': 'req-from-client' });
      expect(answer.refused, target).toBe(true);
      expect(answer.status).toBe(404);
      expect(answer.headers).toEqual({
        'Content-Type': 'application/json; charset=utf-8',
        'Content-Length': String(answer.body!.length),
        'X-Request-Id': 'req-from-client',
      });
      expect(JSON.parse(answer.body!.toString('utf8'))).toEqual({
        success: false,
        error: { code: 'not_found', message: 'No hook at this path accepts these credentials.', details: {} },
      });
    }
  });
});

import type { Context } from 'koa';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { codecCapability, loggablePath, operatorGuard, webUiCodecPath } from '../../src/codec/codec.auth.ts';

const token = 'operator-token-0123456789abcdef';
const uiOrigin = 'http://127.0.0.1:8233';
const capability = codecCapability(token);

/** Just what the guard reads of a request: two headers, the route's capability and the TCP peer. */
function request(headers: Record<string, string>, options: { capability?: string; remoteAddress?: string } = {}) {
  const lower = Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
  const params = options.capability === undefined ? {} : { capability: options.capability };
  const socket = { remoteAddress: options.remoteAddress ?? '127.0.0.1' };
  return { get: (name: string) => lower[name.toLowerCase()] ?? '', params, req: { socket } } as unknown as Context;
}

/** Every secret production requires, so that any environment loads. */
const secrets = {
  NEOFLOW_MASTER_KEY: Buffer.alloc(32, 1).toString('base64'),
  NEOFLOW_PAYLOAD_KEY: Buffer.alloc(32, 2).toString('base64'),
  NEOFLOW_OPERATOR_TOKEN: token,
};

const metricsToken = 'metrics-token-0123456789abcdef';

async function admits(env: string, ctx: Context): Promise<boolean> {
  const guard = operatorGuard(loadConfig({ NEOFLOW_ENV: env, ...secrets, NEOFLOW_METRICS_TOKEN: metricsToken }));
  let reached = false;
  const refusal = await guard(ctx, async () => {
    reached = true;
  }).then(
    () => undefined,
    (error: unknown) => error,
  );
  // The request goes on, or it is refused with 401: never both, never neither.
  if (reached) expect(refusal).toBeUndefined();
  else expect(refusal).toMatchObject({ code: 'unauthorized', status: 401 });
  return reached;
}

const environments = ['development', 'test', 'production'];

describe('operatorGuard', () => {
  it.each(environments)('admits the operator token in %s, from anywhere', async (env) => {
    const remote = { remoteAddress: '203.0.113.9' };
    expect(await admits(env, request({ Authorization: `Bearer ${token}` }, remote))).toBe(true);
    expect(await admits(env, request({ Authorization: `bearer  ${token} ` }, remote))).toBe(true);
  });

  it.each(environments)('refuses a missing, wrong or truncated token in %s', async (env) => {
    for (const authorization of ['', `Bearer ${token}x`, `Bearer ${token.slice(0, -1)}`, token, `Basic ${token}`]) {
      expect(await admits(env, request({ Authorization: authorization }, { remoteAddress: '203.0.113.9' }))).toBe(
        false,
      );
    }
  });

  it.each(environments)('refuses the metrics token (Prometheus scrapes, it never decodes) in %s', async (env) => {
    expect(await admits(env, request({ Authorization: `Bearer ${metricsToken}` }))).toBe(false);
    expect(await admits(env, request({}, { capability: codecCapability(metricsToken) }))).toBe(false);
  });

  it.each(environments)('admits the Web UI’s capability path without a token in %s', async (env) => {
    expect(await admits(env, request({}, { capability }))).toBe(true);
    expect(await admits(env, request({}, { capability, remoteAddress: '203.0.113.9' }))).toBe(true);
  });

  it.each(environments)('refuses a wrong, truncated or empty capability in %s', async (env) => {
    for (const wrong of [`${capability}x`, capability.slice(0, -1), '', codecCapability(`${token}x`), token]) {
      expect(await admits(env, request({ Origin: uiOrigin }, { capability: wrong }))).toBe(false);
    }
  });

  // A local process once decoded everything in development by claiming the dev UI's origin.
  it.each(environments)('never trusts an Origin in %s, not even the dev UI’s from loopback', async (env) => {
    expect(await admits(env, request({ Origin: uiOrigin }))).toBe(false);
    expect(await admits(env, request({ Origin: 'http://localhost:8233' }, { remoteAddress: '::1' }))).toBe(false);
  });

  it('refuses to start without an operator token, naming the variable', () => {
    expect(() => operatorGuard(loadConfig({ NEOFLOW_ENV: 'test' }))).toThrow(/^NEOFLOW_OPERATOR_TOKEN/);
  });
});

describe('the Web UI’s codec capability', () => {
  it('is an unguessable path segment derived from the token, which it does not reveal', () => {
    expect(capability).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(codecCapability(token)).toBe(capability);
    expect(codecCapability(`${token}x`)).not.toBe(capability);
    expect(capability).not.toContain(token.slice(0, 8));
    expect(webUiCodecPath(token)).toBe(`/v1/codec/ui/${capability}`);
  });

  it('is cut from logged paths, even from one in the wrong case', () => {
    expect(loggablePath(`/v1/codec/ui/${capability}/decode`)).toBe('/v1/codec/ui/…/decode');
    expect(loggablePath(`/V1/Codec/UI/${capability}/encode`)).toBe('/v1/codec/ui/…/encode');
    expect(loggablePath('/v1/codec/decode')).toBe('/v1/codec/decode');
  });
});

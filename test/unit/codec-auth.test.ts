import type { Context } from 'koa';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { operatorGuard } from '../../src/temporal/codec.auth.ts';

const token = 'operator-token-0123456789abcdef';
const uiOrigin = 'http://127.0.0.1:8233';

/** Just what the guard reads of a request: two headers and the TCP peer. */
function request(headers: Record<string, string>, remoteAddress = '127.0.0.1') {
  const lower = Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
  return { get: (name: string) => lower[name.toLowerCase()] ?? '', req: { socket: { remoteAddress } } } as Context;
}

/** Every secret production requires, so that any environment loads. */
const secrets = {
  NEOFLOW_MASTER_KEY: Buffer.alloc(32, 1).toString('base64'),
  NEOFLOW_PAYLOAD_KEY: Buffer.alloc(32, 2).toString('base64'),
  NEOFLOW_OPERATOR_TOKEN: token,
};

async function admits(env: string, ctx: Context): Promise<boolean> {
  const guard = operatorGuard(loadConfig({ NEOFLOW_ENV: env, ...secrets }));
  let reached = false;
  try {
    await guard(ctx, async () => {
      reached = true;
    });
  } catch (error) {
    expect(error).toMatchObject({ code: 'unauthorized', status: 401 });
  }
  return reached;
}

describe('operatorGuard', () => {
  it.each(['development', 'test', 'production'])('admits the operator token in %s, from anywhere', async (env) => {
    expect(await admits(env, request({ Authorization: `Bearer ${token}` }, '203.0.113.9'))).toBe(true);
    expect(await admits(env, request({ Authorization: `bearer  ${token} ` }, '203.0.113.9'))).toBe(true);
  });

  it.each(['development', 'test', 'production'])('refuses a missing, wrong or truncated token in %s', async (env) => {
    for (const authorization of ['', `Bearer ${token}x`, `Bearer ${token.slice(0, -1)}`, token, `Basic ${token}`]) {
      expect(await admits(env, request({ Authorization: authorization }, '203.0.113.9'))).toBe(false);
    }
  });

  it('admits the dev Web UI without a token in development: loopback peer and an allowed Origin', async () => {
    expect(await admits('development', request({ Origin: uiOrigin }))).toBe(true);
    expect(await admits('development', request({ Origin: 'http://localhost:8233' }, '::1'))).toBe(true);
    expect(await admits('development', request({ Origin: uiOrigin }, '::ffff:127.0.0.1'))).toBe(true);
  });

  it('refuses, in development, another origin, no origin, or the UI origin from another host', async () => {
    expect(await admits('development', request({ Origin: 'http://evil.example' }))).toBe(false);
    expect(await admits('development', request({ Origin: 'http://127.0.0.1:3000' }))).toBe(false);
    expect(await admits('development', request({}))).toBe(false);
    expect(await admits('development', request({ Origin: uiOrigin }, '192.168.1.20'))).toBe(false);
  });

  it.each(['test', 'production'])('never trusts the origin in %s', async (env) => {
    expect(await admits(env, request({ Origin: uiOrigin }))).toBe(false);
  });

  it('refuses to start without an operator token, naming the variable', () => {
    expect(() => operatorGuard(loadConfig({ NEOFLOW_ENV: 'test' }))).toThrow(/^NEOFLOW_OPERATOR_TOKEN/);
  });
});

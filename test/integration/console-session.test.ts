import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { roles } from '../../src/auth/roles.ts';
import { hashKey } from '../../src/auth/key-material.ts';
import { startTestApi, type TestApi } from '../support/api.ts';
import { issueKey, revoke } from '../support/keys.ts';

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.close());

const sql = <T>(query: string, parameters: unknown[] = []) =>
  api.database.orm.em.getConnection().execute<T[]>(query, parameters);

/** Opens a session with `key` as the console does; answers its cookie (`name=value`) and Set-Cookie. */
async function login(key: string, headers: Record<string, string> = {}) {
  const response = await fetch(`${api.url}/v1/console/session`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${key}`, 'X-Neoflow-Console': '1', ...headers },
  });
  expect(response.status).toBe(201);
  const setCookie = response.headers.get('set-cookie')!;
  return { cookie: setCookie.split(';')[0]!, setCookie, body: (await response.json()) as Record<string, unknown> };
}

const withCookie = (cookie: string, path: string, init: RequestInit = {}) =>
  fetch(`${api.url}${path}`, { ...init, headers: { Cookie: cookie, ...(init.headers as Record<string, string>) } });

describe('console sessions', () => {
  it('exchange a key for an HttpOnly, SameSite=Strict cookie holding a token stored only as its hash', async () => {
    const { key, keyId, accountId } = await issueKey(api.database.orm, [...roles.viewer]);
    const { cookie, setCookie, body } = await login(key);
    expect(setCookie).toMatch(
      /^neoflow_session=nfs_[A-Za-z0-9_-]{43}; Path=\/; Max-Age=43200; HttpOnly; SameSite=Strict$/,
    );
    expect(setCookie).not.toContain(key);
    expect(JSON.stringify(body)).not.toContain(key);
    expect(body).toMatchObject({ accountId, keyId, scopes: [...roles.viewer], idleTimeoutSeconds: 1800 });
    const token = cookie.split('=')[1]!;
    const rows = await sql<{ token_hash: string; key_id: string }>(
      `select "token_hash", "key_id" from "console_sessions" where "key_id" = ?`,
      [keyId],
    );
    expect(rows).toEqual([{ token_hash: hashKey(token), key_id: keyId }]);

    const shown = await withCookie(cookie, '/v1/console/session');
    expect(shown.status).toBe(200);
    expect(await shown.json()).toMatchObject({ accountId, keyId, scopes: [...roles.viewer] });
    expect((await withCookie(cookie, '/v1/automations')).status).toBe(200);
  });

  it('is Secure when the request came over TLS (at the proxy in front)', async () => {
    const { key } = await issueKey(api.database.orm);
    const { setCookie } = await login(key, { 'X-Forwarded-Proto': 'https' });
    expect(setCookie).toMatch(/; HttpOnly; SameSite=Strict; Secure$/);
  });

  it("acts with exactly its key's scopes: a viewer's forged retry gets 403, the same as the key's", async () => {
    const { key } = await issueKey(api.database.orm, [...roles.viewer]);
    const { cookie } = await login(key);
    const retry = '/v1/automations/auto_missing/runs/run_missing/retry';
    const bySession = await withCookie(cookie, retry, {
      method: 'POST',
      headers: { 'X-Neoflow-Console': '1', Origin: api.url },
    });
    const byKey = await fetch(`${api.url}${retry}`, { method: 'POST', headers: { 'X-API-Key': key } });
    expect(bySession.status).toBe(403);
    expect(byKey.status).toBe(403);
    expect(await bySession.json()).toEqual(await byKey.json());
  });

  it('refuses a change made with the cookie from another site, or without the console header', async () => {
    const { key } = await issueKey(api.database.orm);
    const { cookie } = await login(key);
    const fire = (headers: Record<string, string>) =>
      withCookie(cookie, '/v1/automations', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', ...headers },
        body: '{}',
      });
    const refused: Record<string, string>[] = [
      {},
      { Origin: 'https://evil.example' },
      { 'X-Neoflow-Console': '1', Origin: 'https://evil.example' },
      { 'X-Neoflow-Console': '1', 'Sec-Fetch-Site': 'cross-site' },
      { 'X-Neoflow-Console': 'yes' },
    ];
    for (const headers of refused) {
      const response = await fire(headers);
      expect(response.status, JSON.stringify(headers)).toBe(403);
      expect(((await response.json()) as { error: { message: string } }).error.message).toContain('X-Neoflow-Console');
    }
    // The same request from the console itself reaches the route (a 400 for its empty body).
    const fromConsole = await fire({ 'X-Neoflow-Console': '1', Origin: api.url, 'Sec-Fetch-Site': 'same-origin' });
    expect(fromConsole.status).toBe(400);
    // Reads need no header: a cross-site read cannot see the answer.
    expect((await withCookie(cookie, '/v1/automations')).status).toBe(200);
  });

  it('cannot open another session from a session', async () => {
    const { key } = await issueKey(api.database.orm);
    const { cookie } = await login(key);
    const response = await withCookie(cookie, '/v1/console/session', {
      method: 'POST',
      headers: { 'X-Neoflow-Console': '1' },
    });
    expect(response.status).toBe(403);
  });

  it('ends with its key revoked, when idle too long, and at logout', async () => {
    const revoked = await issueKey(api.database.orm);
    const first = await login(revoked.key);
    await revoke(api.database.orm, revoked.keyId);
    expect((await withCookie(first.cookie, '/v1/account')).status).toBe(401);

    const { key, keyId } = await issueKey(api.database.orm);
    const idle = await login(key);
    await sql(`update "console_sessions" set "last_seen_at" = now() - interval '31 minutes' where "key_id" = ?`, [
      keyId,
    ]);
    expect((await withCookie(idle.cookie, '/v1/account')).status).toBe(401);

    const live = await login(key);
    expect((await withCookie(live.cookie, '/v1/account')).status).toBe(200);
    const logout = await withCookie(live.cookie, '/v1/console/session', {
      method: 'DELETE',
      headers: { 'X-Neoflow-Console': '1' },
    });
    expect(logout.status).toBe(200);
    expect(logout.headers.get('set-cookie')).toMatch(
      /^neoflow_session=; Path=\/; Max-Age=0; HttpOnly; SameSite=Strict/,
    );
    expect((await withCookie(live.cookie, '/v1/account')).status).toBe(401);
    // The idle session was swept when this key logged in again; the logged-out one was deleted.
    expect(await sql(`select "id" from "console_sessions" where "key_id" = ?`, [keyId])).toEqual([]);
  });
});

describe('the console page', () => {
  it('answers every page and asset with a policy that allows no inline code and no framing', async () => {
    const page = await fetch(`${api.url}/console`);
    const index = await page.text();
    const assets = [...index.matchAll(/(?:src|href)="(\/console\/assets\/[^"]+)"/g)].map((match) => match[1]!);
    expect(assets.length).toBe(2);
    for (const response of [page, ...(await Promise.all(assets.map((path) => fetch(`${api.url}${path}`))))]) {
      expect(response.status).toBe(200);
      const policy = response.headers.get('content-security-policy')!;
      expect(policy).toContain("default-src 'self'");
      expect(policy).toContain("frame-ancestors 'none'");
      expect(policy).not.toMatch(/unsafe-inline|unsafe-eval/);
      expect(response.headers.get('x-frame-options')).toBe('DENY');
    }
    expect(index).not.toMatch(/<script>|<script(?![^>]*\bsrc=)[^>]*>|<style|style=/);
    expect((await fetch(`${api.url}/console/assets/..%2F..%2Fpackage.json`)).status).toBe(404);
    expect((await fetch(`${api.url}/console/assets/missing.js`)).status).toBe(404);
  });
});

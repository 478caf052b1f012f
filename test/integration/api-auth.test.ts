import { Router } from '@koa/router';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callerOf, requireScope } from '../../src/api/auth.ts';
import { ApiKey } from '../../src/auth/api-key.entity.ts';
import { findOwned } from '../../src/db/owned.ts';
import { AppError } from '../../src/errors.ts';
import { startTestApi, type TestApi } from '../support/api.ts';
import { issueKey, revoke } from '../support/keys.ts';

/**
 * No area has resources yet, so a probe route stands in for one: it needs `functions:read` and
 * loads an account-owned row (an API key) through the same isolation helper the areas use.
 */
const probe = (api: () => TestApi) =>
  new Router().get('/v1/functions/probe/:id', requireScope('functions:read'), async (ctx) => {
    const notFound = () => new AppError('function_not_found', 'Function not found.');
    const key = await findOwned(api().services.em(), ApiKey, ctx.params.id!, callerOf(ctx.state).accountId, notFound);
    ctx.body = { success: true, data: { id: key.id } };
  });

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi([probe(() => api)]);
});
afterAll(() => api.close());

const get = (path: string, headers: Record<string, string> = {}) => fetch(`${api.url}${path}`, { headers });
const areas = [
  { path: '/v1/functions', code: 'unauthorized', shape: (error: object) => ({ success: false, error }) },
  { path: '/v1/secrets', code: 'UNAUTHORIZED', shape: (error: object) => ({ error }) },
  { path: '/v1/automations', code: 'UNAUTHORIZED', shape: (error: object) => ({ error }) },
];

describe('authentication', () => {
  it.each(areas)(
    'gives identical 401s for missing, unknown and revoked keys in $path',
    async ({ path, code, shape }) => {
      const revoked = await issueKey(api.database.orm);
      await revoke(api.database.orm, revoked.keyId);
      const unknown = `nf_${'A'.repeat(43)}`;
      const attempts: Record<string, string>[] = [
        {},
        { Authorization: `Bearer ${unknown}` },
        { 'X-API-Key': revoked.key },
        { 'X-API-Key': 'garbage' },
      ];
      const bodies = [];
      for (const headers of attempts) {
        const response = await get(path, headers);
        expect(response.status).toBe(401);
        bodies.push(await response.json());
      }
      expect(bodies[0]).toEqual(shape({ code, message: expect.any(String), details: {} }));
      expect(new Set(bodies.map((body) => JSON.stringify(body))).size).toBe(1);
    },
  );

  it('accepts the key in either header form, and both when they agree', async () => {
    const { key, account } = await issueKey(api.database.orm);
    const forms: Record<string, string>[] = [
      { Authorization: `Bearer ${key}` },
      { 'X-API-Key': key },
      { Authorization: `Bearer ${key}`, 'X-API-Key': key },
    ];
    for (const headers of forms) {
      const response = await get('/v1/account', headers);
      expect(response.status).toBe(200);
      expect(await response.json()).toMatchObject({ name: account, id: expect.stringMatching(/^acct_/) });
    }
  });

  it('refuses two different keys in the two headers', async () => {
    const [a, b] = [await issueKey(api.database.orm), await issueKey(api.database.orm)];
    const response = await get('/v1/account', { Authorization: `Bearer ${a.key}`, 'X-API-Key': b.key });
    expect(response.status).toBe(401);
  });

  it('answers 403 forbidden to a valid key without the scope', async () => {
    const { key, keyId } = await issueKey(api.database.orm, ['secrets:read']);
    const response = await get(`/v1/functions/probe/${keyId}`, { 'X-API-Key': key });
    expect(response.status).toBe(403);
    expect(await response.json()).toMatchObject({
      success: false,
      error: { code: 'forbidden', details: { requiredScope: 'functions:read' } },
    });
  });

  it("answers another account's resource id exactly like a missing id", async () => {
    const mine = await issueKey(api.database.orm, ['functions:read']);
    const theirs = await issueKey(api.database.orm);
    const own = await get(`/v1/functions/probe/${mine.keyId}`, { 'X-API-Key': mine.key });
    expect(own.status).toBe(200);
    const foreign = await get(`/v1/functions/probe/${theirs.keyId}`, { 'X-API-Key': mine.key });
    const missing = await get('/v1/functions/probe/key_doesnotexist000000000000', { 'X-API-Key': mine.key });
    expect(foreign.status).toBe(404);
    expect(missing.status).toBe(404);
    expect(await foreign.json()).toEqual(await missing.json());
  });

  it('authenticates before routing, so a valid key reaches the area and learns a path is missing', async () => {
    const { key } = await issueKey(api.database.orm);
    const response = await get('/v1/secrets/sec_unknown', { Authorization: `Bearer ${key}` });
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ error: { code: 'NOT_FOUND' } });
  });

  it('routes only the one spelling of a path: another case is 404, never a route reached without a key', async () => {
    const { key } = await issueKey(api.database.orm);
    const respelled = [
      '/v1/SECRETS',
      '/V1/secrets',
      '/v1/Functions/func_x',
      '/v1/ACCOUNT',
      '/v1/Automations/auto_x/runs',
    ];
    for (const headers of [{}, { Authorization: `Bearer ${key}` }] as Record<string, string>[]) {
      for (const path of respelled) {
        const response = await get(path, headers);
        expect([path, response.status, await response.json()]).toEqual([
          path,
          404,
          { success: false, error: { code: 'not_found', message: expect.any(String), details: {} } },
        ]);
      }
    }
  });
});

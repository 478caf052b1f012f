import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  accountName,
  api,
  body,
  call,
  create,
  error,
  failFn,
  get,
  key,
  keyFor,
  missingAutomation,
  otherKey,
  runsOf,
  settledRuns,
  startAutomationsApi,
  stopAutomationsApi,
} from '../support/automations-api.ts';

// The automations area over HTTP: methods, scopes, keys and accounts.
beforeAll(() => startAutomationsApi());
afterAll(stopAutomationsApi);

describe('methods', () => {
  it('answers a wrong method on a known path with 405 and Allow', async () => {
    const { id } = await create();
    const put = await fetch(`${api.url}/v1/automations/${id}`, {
      method: 'PUT',
      headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'x' }),
    });
    expect(put.status).toBe(405);
    expect(put.headers.get('Allow')).toMatch(/PATCH/);
    expect((await call('DELETE', '/automations')).status).toBe(405);
    expect((await call('GET', `/automations/${id}/trigger`)).status).toBe(405);
  });
});

describe('scopes and authentication', () => {
  it('lets an automations:read key read but not write: 403 FORBIDDEN', async () => {
    const automation = await create();
    const reader = await keyFor(['automations:read'], accountName);
    expect((await call('GET', '/automations', undefined, reader)).status).toBe(200);
    expect((await call('GET', `/automations/${automation.id}`, undefined, reader)).status).toBe(200);
    expect((await call('GET', `/automations/${automation.id}/runs`, undefined, reader)).status).toBe(200);
    const forbidden = error(403, 'FORBIDDEN', { requiredScope: 'automations:write' });
    // Firing, retrying and pausing need automations:operate, which automations:write implies.
    const notOperator = error(403, 'FORBIDDEN', { requiredScope: 'automations:operate' });
    expect(await call('POST', '/automations', body(), reader)).toEqual(forbidden);
    expect(await call('PATCH', `/automations/${automation.id}`, { name: 'x' }, reader)).toEqual(notOperator);
    expect(await call('DELETE', `/automations/${automation.id}`, undefined, reader)).toEqual(forbidden);
    expect(await call('POST', `/automations/${automation.id}/trigger`, undefined, reader)).toEqual(notOperator);
    expect(await call('POST', `/automations/${automation.id}/runs/run_x/retry`, undefined, reader)).toEqual(
      notOperator,
    );
    expect((await get(automation.id)).body).toMatchObject(automation);
    expect(await runsOf(automation.id)).toEqual([]);
  });

  it('needs automations:read to read', async () => {
    const writer = await keyFor(['automations:write'], accountName);
    expect((await call('POST', '/automations', body(), writer)).status).toBe(201);
    const forbidden = error(403, 'FORBIDDEN', { requiredScope: 'automations:read' });
    expect(await call('GET', '/automations', undefined, writer)).toEqual(forbidden);
    const functionsOnly = await keyFor(['functions:read'], accountName);
    expect(await call('GET', '/automations', undefined, functionsOnly)).toEqual(forbidden);
  });

  it('answers 401 UNAUTHORIZED without a valid key, on every endpoint', async () => {
    const { id } = await create();
    const endpoints: [string, string, unknown?][] = [
      ['GET', '/automations'],
      ['POST', '/automations', body()],
      ['GET', `/automations/${id}`],
      ['PATCH', `/automations/${id}`, { name: 'x' }],
      ['DELETE', `/automations/${id}`],
      ['POST', `/automations/${id}/trigger`],
      ['GET', `/automations/${id}/runs`],
      ['POST', `/automations/${id}/runs/run_x/retry`],
    ];
    for (const [method, path, payload] of endpoints) {
      expect(await call(method, path, payload, null)).toEqual(error(401, 'UNAUTHORIZED'));
      expect(await call(method, path, payload, 'nf_notakey')).toEqual(error(401, 'UNAUTHORIZED'));
    }
    expect((await get(id)).body).toMatchObject({ name: expect.any(String), status: 'inactive' });
  });

  it('accepts X-API-Key as well as Bearer', async () => {
    const response = await fetch(`${api.url}/v1/automations`, { headers: { 'X-API-Key': key } });
    expect(response.status).toBe(200);
  });
});

describe('account isolation', () => {
  it("answers another account's automation exactly like a missing one, on every endpoint", async () => {
    const mine = await create({ action: { type: 'function', functionId: failFn } });
    const fired = await call('POST', `/automations/${mine.id}/trigger`);
    const [failed] = await settledRuns(mine.id, 1);
    expect(failed.status).toBe('failure');
    const before = await get(mine.id);

    const endpoints: [string, string, unknown?][] = [
      ['GET', '/automations/{id}'],
      ['PATCH', '/automations/{id}', { name: 'stolen', status: 'active' }],
      ['DELETE', '/automations/{id}'],
      ['POST', '/automations/{id}/trigger'],
      ['GET', '/automations/{id}/runs'],
      ['POST', `/automations/{id}/runs/${fired.body.run.id as string}/retry`],
    ];
    for (const [method, path, payload] of endpoints) {
      const foreign = await call(method, path.replace('{id}', mine.id), payload, otherKey);
      const missing = await call(method, path.replace('{id}', missingAutomation), payload, otherKey);
      expect(foreign).toEqual(error(404, 'AUTOMATION_NOT_FOUND'));
      expect(foreign).toEqual(missing);
    }
    const listed = await call('GET', '/automations?limit=100', undefined, otherKey);
    expect(listed.body).toEqual({ automations: [], pagination: { total: 0, limit: 100, offset: 0, hasMore: false } });

    expect(await get(mine.id)).toEqual(before);
    expect(await runsOf(mine.id)).toHaveLength(1);
  });
});

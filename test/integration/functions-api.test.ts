import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Execution } from '../../src/functions/execution.entity.ts';
import { startTestApi, type TestApi } from '../support/api.ts';
import { testApi, type ApiCall } from '../support/http.ts';
import { issueKey } from '../support/keys.ts';

let api: TestApi;
let key: string;
let send: ApiCall;
let accountId: string;
beforeAll(async () => {
  api = await startTestApi();
  ({ key, accountId } = await issueKey(api.database.orm));
  send = testApi(api.url, key);
});
afterAll(() => api.close());

interface FunctionData {
  id: string;
  name: string;
  code?: string;
  secrets?: string[];
  lastInvocation?: string | null;
  [field: string]: unknown;
}

const call = <T = FunctionData>(method: string, path: string, body?: unknown, apiKey?: string) =>
  send<T>(method, `/functions${path}`, body, apiKey);

/** An execution row of the function as a run would leave it; `end` says how it went. */
function storedExecution(
  em: EntityManager,
  functionId: string,
  end: {
    status: 'running' | 'completed' | 'failed';
    duration: number | null;
    startedAt: Date;
    completedAt: Date | null;
  },
) {
  em.create(Execution, {
    function: functionId,
    account: accountId,
    params: {},
    logs: [],
    trigger: { type: 'api' },
    secretsRead: [],
    httpRequests: [],
    error: null,
    ...end,
  });
}

const code = 'module.exports = async (context) => ({ hello: context.params.name });';
let counter = 0;
const create = (overrides: Record<string, unknown> = {}, apiKey = key) =>
  call('POST', '', { name: `fn-${++counter}`, code, runtime: 'node18', ...overrides }, apiKey);

describe('functions area: create and read', () => {
  it('creates a function with defaults and returns it with its code', async () => {
    const created = await create({ name: 'price-alert', description: 'alerts', tags: ['defi'] });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      success: true,
      data: {
        id: expect.stringMatching(/^func_[A-Za-z0-9_-]{24}$/),
        name: 'price-alert',
        description: 'alerts',
        runtime: 'node18',
        timeout: 30,
        code,
        status: 'active',
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
        tags: ['defi'],
        environment: {},
        secrets: [],
        allowedHosts: [],
        version: 1,
        // A new function has run nothing: its stats are there, all zero.
        stats: {
          invocations: { total: 0, success: 0, failed: 0, last24Hours: 0 },
          averageExecutionTime: 0,
          lastInvocation: null,
        },
      },
    });
  });

  it('gets one with stats, and its code only with include_code=true', async () => {
    const { body } = await create();
    const plain = await call('GET', `/${body.data!.id}`);
    expect(plain.body.data).not.toHaveProperty('code');
    expect(plain.body.data!.stats).toEqual({
      invocations: { total: 0, success: 0, failed: 0, last24Hours: 0 },
      averageExecutionTime: 0,
      lastInvocation: null,
    });
    expect((await call('GET', `/${body.data!.id}?include_code=true`)).body.data!.code).toBe(code);
    expect((await call('GET', `/${body.data!.id}?include_code=yes`)).status).toBe(400);
  });

  it('computes stats and lastInvocation from the execution history', async () => {
    const { body } = await create();
    const em = api.database.orm.em.fork();
    const now = Date.now();
    const runs = [
      { status: 'completed', duration: 100, startedAt: new Date(now - 1000) },
      { status: 'completed', duration: 201, startedAt: new Date(now - 2000) },
      { status: 'failed', duration: 300, startedAt: new Date(now - 48 * 3600_000) },
      { status: 'running', duration: null, startedAt: new Date(now - 500) },
    ] as const;
    for (const run of runs) storedExecution(em, body.data!.id, { completedAt: null, ...run });
    await em.flush();
    const { data } = (await call('GET', `/${body.data!.id}`)).body;
    expect(data!.stats).toEqual({
      invocations: { total: 4, success: 2, failed: 1, last24Hours: 3 },
      averageExecutionTime: 200,
      lastInvocation: new Date(now - 500).toISOString(),
    });
    const listed = (await call<FunctionData[]>('GET', '?limit=100')).body.data!.find((fn) => fn.id === body.data!.id);
    expect(listed!.lastInvocation).toBe(new Date(now - 500).toISOString());
  });

  it.each([
    [{ name: undefined }, 'name'],
    [{ name: 'has space' }, 'name'],
    [{ name: 'x'.repeat(65) }, 'name'],
    [{ code: undefined }, 'code'],
    [{ runtime: 'node20' }, 'runtime'],
    [{ timeout: 0 }, 'timeout'],
    [{ timeout: 301 }, 'timeout'],
    [{ timeout: 1.5 }, 'timeout'],
    [{ environment: { '1BAD': 'x' } }, 'environment.1BAD'],
    [{ environment: { GOOD: 1 } }, 'environment.GOOD'],
    [{ environment: Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`VAR_${i}`, 'x'])) }, 'environment'],
    [{ tags: 'defi' }, 'tags'],
    [{ secrets: ['NOT_A_SECRET'] }, 'secrets'],
    [{ secrets: ['FEED_TOKEN', 'OTHER', 'FEED_TOKEN'] }, 'secrets.2'],
    [{ secrets: Array.from({ length: 70_000 }, (_, i) => `S_${i}`) }, 'secrets'],
    [{ secrets: Array.from({ length: 101 }, (_, i) => `S_${i}`) }, 'secrets'],
    [{ secrets: ['not-a-name'] }, 'secrets.0'],
    [{ status: 'inactive' }, 'status'],
    [{ code: 'x'.repeat(256 * 1024 + 1) }, 'code'],
  ])('rejects invalid input #%# with 400 invalid_request naming it', async (override, field) => {
    const response = await create(override);
    expect(response).toMatchObject({ status: 400, body: { success: false, error: { code: 'invalid_request' } } });
    expect(response.body.error!.details.field).toBe(field);
  });

  it('rejects code that does not parse or has no entry point with invalid_function_code', async () => {
    const broken = await create({ code: 'module.exports = async (context) => {\n  return context.;\n};' });
    expect(broken).toMatchObject({ status: 400, body: { error: { code: 'invalid_function_code' } } });
    expect(broken.body.error!.details).toMatchObject({ line: 2 });
    const noEntry = await create({ code: 'const x = 1;' });
    expect(noEntry).toMatchObject({ status: 400, body: { error: { code: 'invalid_function_code' } } });
  });

  it('accepts the four entry-point forms', async () => {
    for (const form of [
      'module.exports = async (context) => 1;',
      'export default async function (context) { return 1; }',
      'exports.handler = async (context) => 1;',
      'async function main(context) { return 1; }',
    ]) {
      expect((await create({ code: form })).status).toBe(201);
    }
  });

  it('answers 409 conflict to a duplicate name in the account', async () => {
    await create({ name: 'unique-name' });
    expect(await create({ name: 'unique-name' })).toMatchObject({ status: 409, body: { error: { code: 'conflict' } } });
  });

  it('grants existing secrets only', async () => {
    const secret = await fetch(`${api.url}/v1/secrets`, {
      method: 'POST',
      headers: { 'X-API-Key': key, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'FEED_TOKEN', value: 'v' }),
    });
    expect(secret.status).toBe(201);
    expect((await create({ secrets: ['FEED_TOKEN'] })).body.data!.secrets).toEqual(['FEED_TOKEN']);
  });
});

describe('functions area: list', () => {
  it('filters, sorts and paginates with hasMore', async () => {
    const own = (await issueKey(api.database.orm)).key;
    for (const [name, runtime, tags] of [
      ['alpha', 'node16', ['a']],
      ['beta', 'node18', ['a', 'b']],
      ['gamma', 'node18', ['b']],
    ] as const) {
      await create({ name, runtime, tags }, own);
    }
    const page = await call<FunctionData[]>('GET', '?limit=2', undefined, own);
    expect(page.body.data!.map((fn) => fn.name)).toEqual(['gamma', 'beta']);
    expect(page.body.pagination).toEqual({ total: 3, limit: 2, offset: 0, hasMore: true });
    expect(Object.keys(page.body.data![0]!).sort()).toEqual(
      ['createdAt', 'description', 'id', 'lastInvocation', 'name', 'runtime', 'status', 'tags', 'updatedAt'].sort(),
    );
    const byName = await call<FunctionData[]>('GET', '?sort=name&order=asc&offset=1', undefined, own);
    expect(byName.body.data!.map((fn) => fn.name)).toEqual(['beta', 'gamma']);
    expect(byName.body.pagination!.hasMore).toBe(false);
    const tagged = await call<FunctionData[]>('GET', '?tag=a&runtime=node18', undefined, own);
    expect(tagged.body.data!.map((fn) => fn.name)).toEqual(['beta']);
  });

  it('rejects unknown enum values and bad pagination', async () => {
    for (const query of ['?runtime=node20', '?sort=size', '?order=up', '?limit=0', '?limit=101', '?offset=-1']) {
      expect((await call('GET', query)).body.error?.code).toBe('invalid_request');
    }
  });
});

describe('functions area: change and delete', () => {
  it('updates some fields and returns the function with code', async () => {
    const { body } = await create({ tags: ['old'] });
    const updated = await call('PUT', `/${body.data!.id}`, { timeout: 120, tags: ['new'], description: 'now' });
    expect(updated.status).toBe(200);
    expect(updated.body.data).toMatchObject({
      timeout: 120,
      tags: ['new'],
      description: 'now',
      code,
      name: body.data!.name,
    });
    expect((await call('PUT', `/${body.data!.id}`, { id: 'func_mine' })).body.error?.details.field).toBe('id');
    expect((await call('PUT', `/${body.data!.id}`, {})).status).toBe(400);
  });

  it('replaces the environment and the granted secrets through their sub-resources', async () => {
    const { body } = await create({ environment: { OLD: '1' } });
    expect((await call('GET', `/${body.data!.id}/environment`)).body).toEqual({ success: true, data: { OLD: '1' } });
    const replaced = await call('PUT', `/${body.data!.id}/environment`, { API_URL: 'https://example.test' });
    expect(replaced.body).toEqual({ success: true, data: { API_URL: 'https://example.test' } });
    expect((await call('PUT', `/${body.data!.id}/environment`, { 'bad-key': 'x' })).status).toBe(400);
    expect((await call('PUT', `/${body.data!.id}/secrets`, { secrets: [] })).body).toEqual({
      success: true,
      data: { secrets: [] },
    });
    expect((await call('PUT', `/${body.data!.id}/secrets`, { secrets: ['MISSING'] })).status).toBe(400);
    const twice = await call('PUT', `/${body.data!.id}/secrets`, { secrets: ['FEED_TOKEN', 'FEED_TOKEN'] });
    expect(twice).toMatchObject({
      status: 400,
      body: { error: { code: 'invalid_request', details: { field: 'secrets.1' } } },
    });
  });

  it('deletes a function and its executions', async () => {
    const { body } = await create();
    const kept = await create();
    const em = api.database.orm.em.fork();
    for (const fn of [body.data!.id, kept.body.data!.id]) {
      storedExecution(em, fn, { status: 'completed', duration: 1, startedAt: new Date(), completedAt: new Date() });
    }
    await em.flush();
    const deleted = await call('DELETE', `/${body.data!.id}`);
    expect(deleted).toEqual({ status: 200, body: { success: true, data: { id: body.data!.id, deleted: true } } });
    expect(await call('GET', `/${body.data!.id}`)).toMatchObject({
      status: 404,
      body: { success: false, error: { code: 'function_not_found' } },
    });
    const left = api.database.orm.em.fork();
    expect(await left.count(Execution, { function: body.data!.id })).toBe(0);
    expect(await left.count(Execution, { function: kept.body.data!.id })).toBe(1);
  });
});

describe('functions area: access', () => {
  it('needs functions:read to read and functions:write to change', async () => {
    const reader = (await issueKey(api.database.orm, ['functions:read'])).key;
    expect((await call('GET', '', undefined, reader)).status).toBe(200);
    expect((await create({}, reader)).status).toBe(403);
  });

  it("answers another account's function exactly like a missing one", async () => {
    const { body } = await create({ environment: { MODE: 'owner' } });
    const other = (await issueKey(api.database.orm)).key;
    const owners = async () => ({
      fn: await call('GET', `/${body.data!.id}?include_code=true`),
      environment: await call('GET', `/${body.data!.id}/environment`),
    });
    const before = await owners();
    for (const [method, path, payload] of [
      ['GET', '', undefined],
      ['PUT', '', { timeout: 5 }],
      ['DELETE', '', undefined],
      ['GET', '/environment', undefined],
      ['PUT', '/environment', {}],
      ['PUT', '/secrets', { secrets: [] }],
    ] as const) {
      const foreign = await call(method, `/${body.data!.id}${path}`, payload, other);
      const missing = await call(method, `/func_doesnotexist00000000000${path}`, payload, other);
      expect(foreign).toEqual(missing);
      expect(foreign.status).toBe(404);
    }
    expect((await call<FunctionData[]>('GET', '?limit=100', undefined, other)).body.data).toEqual([]);
    // None of the foreign PUTs or the DELETE changed the owner's function.
    expect(await owners()).toEqual(before);
    expect(before.fn.status).toBe(200);
  });
});

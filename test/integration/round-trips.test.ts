import { beforeAll, describe, expect, it } from 'vitest';
import { ApiKey } from '../../src/auth/api-key.entity.ts';
import type { TestApi } from '../support/api.ts';
import { testApi, type ApiCall } from '../support/http.ts';
import { issueKey } from '../support/keys.ts';
import { apiWithWorkerForThisFile } from '../support/worker.ts';

const running = apiWithWorkerForThisFile();
let api: TestApi;
let key: string;
let call: ApiCall;
beforeAll(async () => {
  api = running.api;
  ({ key } = await issueKey(api.database.orm));
  call = testApi(api.url, key);
});

/** Strings a PostgreSQL array literal reads otherwise unless each element is quoted and escaped. */
const awkward = ['NULL', 'null', ' padded ', 'a,b', '{x}', 'say "hi"', 'back\\slash', 'tab\there', 'ünï€ode'];

describe('stored strings and arrays come back exactly', () => {
  it('keeps tags such as "NULL", "null" and " padded " as they were sent, on create, update and read', async () => {
    const code = 'module.exports = async () => 1';
    const created = await call('POST', '/functions', { name: 'tagged', code, runtime: 'node18', tags: awkward });
    expect(created.status).toBe(201);
    expect(created.body.data.tags).toEqual(awkward);
    const id = created.body.data.id as string;
    expect((await call('GET', `/functions/${id}`)).body.data.tags).toEqual(awkward);
    const reversed = [...awkward].reverse();
    expect((await call('PUT', `/functions/${id}`, { tags: reversed })).body.data.tags).toEqual(reversed);
    expect((await call('GET', `/functions/${id}`)).body.data.tags).toEqual(reversed);
  });

  it('finds a function by each awkward tag, and by no near miss', async () => {
    const { key: own } = await issueKey(api.database.orm);
    const code = 'module.exports = async () => 1';
    const body = { name: 'filtered', code, runtime: 'node18', tags: awkward };
    const id = (await call('POST', '/functions', body, own)).body.data.id as string;
    for (const tag of awkward) {
      const listed = await call('GET', `/functions?tag=${encodeURIComponent(tag)}`, undefined, own);
      expect([tag, listed.body.data.map((fn: { id: string }) => fn.id)]).toEqual([tag, [id]]);
    }
    expect((await call('GET', '/functions?tag=padded', undefined, own)).body.data).toEqual([]);
  });

  it('lets a function read a granted secret named NULL', async () => {
    expect((await call('POST', '/secrets', { name: 'NULL', value: 'null-canary' })).status).toBe(201);
    const code = 'module.exports = async (context) => [context.secrets.NULL, await context.secrets.get("NULL")]';
    const created = await call('POST', '/functions', {
      name: 'reads-null',
      code,
      runtime: 'node18',
      secrets: ['NULL'],
    });
    expect(created.body.data.secrets).toEqual(['NULL']);
    const id = created.body.data.id as string;
    expect((await call('GET', `/functions/${id}`)).body.data.secrets).toEqual(['NULL']);
    const invoked = await call('POST', `/functions/${id}/invoke`, {});
    expect([invoked.status, invoked.body.data?.result]).toEqual([200, ['null-canary', 'null-canary']]);
  });

  it('stores every text array column through the same exact encoding (API key scopes too)', async () => {
    const { keyId } = await issueKey(api.database.orm, ['functions:read', 'secrets:write']);
    const em = api.database.orm.em.fork();
    const stored = await em.findOneOrFail(ApiKey, keyId);
    stored.scopes = awkward;
    await em.flush();
    expect((await api.database.orm.em.fork().findOneOrFail(ApiKey, keyId)).scopes).toEqual(awkward);
  });
});

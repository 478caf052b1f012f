import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Secret, SecretVersion } from '../../src/secrets/secret.entity.ts';
import { revealSecrets } from '../../src/secrets/secret-store.ts';
import { startTestApi, type TestApi } from '../support/api.ts';
import { issueKey, testMasters } from '../support/keys.ts';

let api: TestApi;
let key: string;
beforeAll(async () => {
  api = await startTestApi();
  key = (await issueKey(api.database.orm)).key;
});
afterAll(() => api.close());

const call = async (method: string, path: string, body?: unknown, apiKey = key) => {
  const response = await fetch(`${api.url}/v1/secrets${path}`, {
    method,
    headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Body };
};

interface Body {
  id?: string;
  name?: string;
  secrets?: { id: string; name: string }[];
  pagination?: unknown;
  error?: { code: string; details: Record<string, unknown> };
}

const isoMillis = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

describe('secrets area', () => {
  it('creates a secret and returns its metadata, never the value', async () => {
    const created = await call('POST', '', { name: 'RPC_TOKEN', value: 'canary-7731', description: 'for the feed' });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.stringMatching(/^sec_[A-Za-z0-9_-]{24}$/),
      name: 'RPC_TOKEN',
      description: 'for the feed',
      createdAt: expect.stringMatching(isoMillis),
      updatedAt: expect.stringMatching(isoMillis),
    });
    expect(JSON.stringify(created.body)).not.toContain('canary-7731');
  });

  it('gets, updates and deletes a secret', async () => {
    const { body: secret } = await call('POST', '', { name: 'LIFECYCLE', value: 'one' });
    expect((await call('GET', `/${secret.id!}`)).body).toEqual(secret);

    const updated = await call('PUT', `/${secret.id!}`, { value: 'two', description: 'rotated' });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ id: secret.id, name: 'LIFECYCLE', description: 'rotated' });
    expect(JSON.stringify(updated.body)).not.toContain('two"');

    const deleted = await call('DELETE', `/${secret.id!}`);
    expect(deleted).toEqual({ status: 200, body: { success: true, message: expect.any(String) } });
    expect(await call('GET', `/${secret.id!}`)).toMatchObject({ status: 404, body: { error: { code: 'NOT_FOUND' } } });
  });

  it('lists newest first with id, name and timestamps only, paginated', async () => {
    const ownKey = (await issueKey(api.database.orm)).key;
    for (const name of ['FIRST', 'SECOND', 'THIRD']) await call('POST', '', { name, value: 'v' }, ownKey);
    const page = await call('GET', '?limit=2&offset=1', undefined, ownKey);
    expect(page.status).toBe(200);
    expect(page.body.pagination).toEqual({ total: 3, limit: 2, offset: 1, hasMore: false });
    expect(page.body.secrets!.map((s) => s.name)).toEqual(['SECOND', 'FIRST']);
    const first = await call('GET', '?limit=2', undefined, ownKey);
    expect(first.body.pagination).toEqual({ total: 3, limit: 2, offset: 0, hasMore: true });
    expect(Object.keys(page.body.secrets![0]!).sort()).toEqual(['createdAt', 'id', 'name', 'updatedAt']);
  });

  it('answers 409 CONFLICT to a duplicate name in the same account', async () => {
    await call('POST', '', { name: 'DUPLICATE', value: 'a' });
    const again = await call('POST', '', { name: 'DUPLICATE', value: 'b' });
    expect(again).toMatchObject({ status: 409, body: { error: { code: 'CONFLICT', details: { field: 'name' } } } });
  });

  it.each([
    [{ value: 'v' }, 'name'],
    [{ name: 'OK' }, 'value'],
    [{ name: '9LIVES', value: 'v' }, 'name'],
    [{ name: 'has-dash', value: 'v' }, 'name'],
    [{ name: 'A'.repeat(129), value: 'v' }, 'name'],
    [{ name: 'EMPTY', value: '' }, 'value'],
    [{ name: 'BIG', value: 'x'.repeat(64 * 1024 + 1) }, 'value'],
    [{ name: 'LONG', value: 'v', description: 'd'.repeat(1025) }, 'description'],
    [{ name: 'NUM', value: 42 }, 'value'],
    [{ name: 'EXTRA', value: 'v', id: 'sec_mine' }, 'id'],
  ])('rejects %j with 400 INVALID_REQUEST naming %s', async (body, field) => {
    const response = await call('POST', '', body);
    expect(response).toMatchObject({ status: 400, body: { error: { code: 'INVALID_REQUEST', details: { field } } } });
  });

  it('rejects a rename and an empty update', async () => {
    const { body: secret } = await call('POST', '', { name: 'FIXED', value: 'v' });
    expect((await call('PUT', `/${secret.id!}`, { name: 'OTHER' })).body.error?.details.field).toBe('name');
    expect((await call('PUT', `/${secret.id!}`, {})).status).toBe(400);
  });

  it('rejects bad pagination', async () => {
    for (const query of ['?limit=0', '?limit=101', '?offset=-1', '?limit=abc']) {
      expect((await call('GET', query)).body.error?.code).toBe('INVALID_REQUEST');
    }
  });

  it('needs secrets:read to read and secrets:write to change', async () => {
    const reader = (await issueKey(api.database.orm, ['secrets:read'])).key;
    expect((await call('GET', '', undefined, reader)).status).toBe(200);
    const denied = await call('POST', '', { name: 'NOPE', value: 'v' }, reader);
    expect(denied).toMatchObject({ status: 403, body: { error: { code: 'FORBIDDEN' } } });
    const writerOnly = (await issueKey(api.database.orm, ['functions:read'])).key;
    expect((await call('GET', '', undefined, writerOnly)).status).toBe(403);
  });

  it("keeps accounts apart: another account's secret answers exactly like a missing one", async () => {
    const { body: mine } = await call('POST', '', { name: 'PRIVATE', value: 'v' });
    const other = (await issueKey(api.database.orm)).key;
    const missing = 'sec_doesnotexist0000000000';
    const before = await call('GET', `/${mine.id!}`);
    for (const [method, body] of [
      ['GET', undefined],
      ['PUT', { value: 'stolen' }],
      ['DELETE', undefined],
    ] as const) {
      const foreign = await call(method, `/${mine.id!}`, body, other);
      const absent = await call(method, `/${missing}`, body, other);
      expect(foreign).toEqual(absent);
      expect(foreign.status).toBe(404);
    }
    const listed = await call('GET', '?limit=100', undefined, other);
    expect(listed.body.secrets!.map((s) => s.id)).not.toContain(mine.id!);
    // Neither the PUT nor the DELETE touched it: same version, same timestamps.
    expect(await call('GET', `/${mine.id!}`)).toEqual(before);
    expect(before.status).toBe(200);
  });

  it('allows the same name in two accounts', async () => {
    const other = (await issueKey(api.database.orm)).key;
    await call('POST', '', { name: 'SHARED_NAME', value: 'a' });
    expect((await call('POST', '', { name: 'SHARED_NAME', value: 'b' }, other)).status).toBe(201);
  });

  it('gives eight concurrent value updates eight distinct, gapless versions, all answered 200', async () => {
    const { body: secret } = await call('POST', '', { name: 'RACED', value: 'v0' });
    const updates = await Promise.all(
      Array.from({ length: 8 }, (_, index) => call('PUT', `/${secret.id!}`, { value: `v${index + 1}` })),
    );
    expect(updates.map(({ status }) => status)).toEqual(Array(8).fill(200));
    const em = api.database.orm.em.fork();
    const versions = await em.find(SecretVersion, { secret: secret.id! }, { orderBy: { version: 'asc' } });
    expect(versions.map(({ version }) => version)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    const stored = await em.findOneOrFail(Secret, secret.id!);
    expect(stored.version).toBe(9);
    // The newest version is the one the last update wrote, and the one functions read.
    const [revealed] = await revealSecrets(em, testMasters, stored.account.id, ['RACED']);
    expect(revealed!.version).toBe(9);
    expect(revealed!.value).toMatch(/^v[1-8]$/);
  });
});

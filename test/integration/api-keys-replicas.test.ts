import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey } from '../../src/auth/keys.service.ts';
import { startApiProcess, type ApiProcess } from '../support/api-process.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { testMasters, uniqueAccountName } from '../support/keys.ts';

/** Two `neoflow api` processes on one database: a key revoked through one is refused by both at once. */
let db: TestDatabase;
let apis: ApiProcess[];
beforeAll(async () => {
  db = await createTestDatabase();
  apis = await Promise.all([startApiProcess(db.url), startApiProcess(db.url)]);
});
afterAll(async () => {
  await Promise.all(apis.map((api) => api.stop()));
  await db.drop();
});

const send = async (url: string, method: string, path: string, key: string, body?: unknown) => {
  const response = await fetch(`${url}${path}`, {
    method,
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
};

describe('revoking a key across API processes', () => {
  it('refuses it on the next request to either process with the 401 of an unknown key', async () => {
    const owner = (await createKey(db.orm.em.fork(), testMasters, uniqueAccountName('replicas'), ['*'])).key;
    const [first, second] = apis.map((api) => api.url) as [string, string];
    const made = await send(first, 'POST', '/v1/keys', owner, { name: 'shared', role: 'viewer' });
    expect(made.status).toBe(201);
    const { id, key } = made.body as { id: string; key: string };
    // Both processes have just admitted the key: anything they kept of it would be fresh.
    for (const url of [first, second]) expect((await send(url, 'GET', '/v1/account', key)).status).toBe(200);

    expect((await send(first, 'DELETE', `/v1/keys/${id}`, owner)).status).toBe(200);

    const unknown = await send(second, 'GET', '/v1/account', `nf_${'C'.repeat(43)}`);
    expect(unknown.status).toBe(401);
    for (const url of [second, first]) expect(await send(url, 'GET', '/v1/account', key)).toEqual(unknown);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApi } from '../support/api.ts';
import { testApi, type ApiCall, type Envelope } from '../support/http.ts';
import { issueKey } from '../support/keys.ts';
import { until } from '../support/polling.ts';
import { startApiWithWorker, type RunningWorker } from '../support/worker.ts';

let api: TestApi;
let worker: RunningWorker;
let key: string;
let call: ApiCall;
beforeAll(async () => {
  // Twenty clients polling their retries: well over the default rate of one key.
  ({ api, worker } = await startApiWithWorker({ env: { NEOFLOW_RATE_LIMIT: '100000/10s' } }));
  ({ key } = await issueKey(api.database.orm));
  call = testApi(api.url, key);
});
afterAll(async () => {
  await worker.stop();
  await api.close();
});

let counter = 0;
async function deploy(code: string, extra: Record<string, unknown> = {}): Promise<string> {
  const created = await call('POST', '/functions', { name: `storage-${++counter}`, code, runtime: 'node18', ...extra });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body.data!.id as string;
}

const storageOf = (fn: string, path = '') => call('GET', `/functions/${fn}/storage${path}`);

async function ended(fn: string, executionId: string): Promise<Envelope['data']> {
  const read = await until(
    () => call('GET', `/functions/${fn}/executions/${executionId}`),
    (answer) => answer.body.data?.status !== 'running',
    60_000,
  );
  return read.body.data;
}

/** Reads `n`, writes `n + 1` only if `n` is still at the version read: a lost race fails the run. */
const incrementCode = `module.exports = async ({ storage }) => {
  const { value = 0, version } = await storage.getEntry('n');
  await storage.set('n', value + 1, { ifVersion: version });
  return value + 1;
};`;

describe('context.storage, committed with the run', () => {
  it('ends with n = 20 after 20 concurrent increments, each retried while it lost its race (StorageConflict)', async () => {
    const fn = await deploy(incrementCode);
    let conflicts = 0;
    const increment = async () => {
      const invoked = await call('POST', `/functions/${fn}/invoke`, {});
      if (invoked.status === 200) return;
      expect(invoked.body.error?.details.name, JSON.stringify(invoked.body)).toBe('StorageConflict');
      let failed = invoked.body.error!.details.executionId as string;
      for (let attempt = 0; attempt < 60; attempt += 1) {
        conflicts += 1;
        const retried = await call('POST', `/functions/${fn}/executions/${failed}/retry`);
        expect(retried.status, JSON.stringify(retried.body)).toBe(202);
        const execution = await ended(fn, retried.body.data!.execution.id as string);
        if (execution.status === 'completed') return;
        expect(execution.error.name).toBe('StorageConflict');
        failed = execution.id as string;
      }
      throw new Error('an increment lost 60 races in a row');
    };
    await Promise.all(Array.from({ length: 20 }, increment));
    const n = await storageOf(fn, '/n');
    expect(n.body.data).toMatchObject({ key: 'n', value: 20, version: 20 });
    console.log(
      `[function-storage] 20 concurrent increments: ${conflicts} runs failed with StorageConflict and were retried`,
    );
  }, 240_000);

  it('writes nothing for a run that throws after set', async () => {
    const fn = await deploy(`module.exports = async ({ storage }) => {
      await storage.set('a', 1);
      throw new Error('after set');
    };`);
    const invoked = await call('POST', `/functions/${fn}/invoke`, {});
    expect(invoked.status).toBe(500);
    expect((await storageOf(fn, '/a')).status).toBe(404);
    expect((await storageOf(fn)).body.pagination?.total).toBe(0);
    const execution = await call(
      'GET',
      `/functions/${fn}/executions/${String(invoked.body.error!.details.executionId)}`,
    );
    expect(execution.body.data.storage).toEqual({ read: [], written: ['a'] });
  });

  it('writes nothing for a run its timeout ends after set', async () => {
    const fn = await deploy(`module.exports = async ({ storage }) => { await storage.set('t', 1); for (;;) {} };`, {
      timeout: 1,
    });
    const invoked = await call('POST', `/functions/${fn}/invoke`, {});
    expect(invoked.body.error?.details.name, JSON.stringify(invoked.body)).toBe('TimeoutError');
    expect((await storageOf(fn, '/t')).status).toBe(404);
  });

  it('shows a run its own buffered writes, deletes and keys, over what is committed', async () => {
    const fn = await deploy(`module.exports = async ({ storage }) => {
      await storage.set('a/1', { x: 1 });
      await storage.set('a/2', 2);
      await storage.set('b', 3);
      const seen = await storage.get('a/1');
      const entry = await storage.getEntry('a/0');
      await storage.delete('b');
      const first = await storage.list({ prefix: 'a/', limit: 2 });
      const second = await storage.list({ prefix: 'a/', limit: 2, cursor: first.cursor });
      return { seen, entry, first, second, b: (await storage.get('b')) ?? 'gone', missing: (await storage.getEntry('z')) };
    };`);
    expect((await call('PUT', `/functions/${fn}/storage/a%2F0`, { value: 'zero' })).status).toBe(200);
    expect((await call('PUT', `/functions/${fn}/storage/b`, { value: 'bee' })).status).toBe(200);
    const invoked = await call('POST', `/functions/${fn}/invoke`, {});
    expect(invoked.body.data?.result, JSON.stringify(invoked.body)).toEqual({
      seen: { x: 1 },
      entry: { value: 'zero', version: 1 },
      first: { keys: ['a/0', 'a/1'], cursor: 'a/1' },
      second: { keys: ['a/2'] },
      b: 'gone',
      missing: { version: 0 },
    });
    const listed = await storageOf(fn);
    expect(listed.body.data.map((item: { key: string }) => item.key)).toEqual(['a/0', 'a/1', 'a/2']);
    expect((await storageOf(fn, '/a%2F1')).body.data).toMatchObject({ value: { x: 1 }, version: 1 });
    const execution = await call('GET', `/functions/${fn}/executions/${invoked.body.data.execution.id}`);
    expect(execution.body.data.storage).toEqual({ read: ['a/0', 'a/1', 'b', 'z'], written: ['a/1', 'a/2', 'b'] });
  });

  it('keeps values sealed at rest, and answers the API with versions, conflicts and 404s', async () => {
    const fn = await deploy('module.exports = async () => 1;');
    const put = await call('PUT', `/functions/${fn}/storage/k`, { value: { marker: 'plain-text-marker' } });
    expect(put.body.data).toEqual({ key: 'k', version: 1, size: 30 });
    const again = await call('PUT', `/functions/${fn}/storage/k`, { value: 2, ifVersion: 1 });
    expect(again.body.data).toMatchObject({ version: 2 });
    const stale = await call('PUT', `/functions/${fn}/storage/k`, { value: 3, ifVersion: 1 });
    expect(stale.status).toBe(409);
    expect(stale.body.error?.code).toBe('conflict');
    const rows = await api.database.orm.em
      .fork()
      .execute<{ ciphertext: Buffer }[]>(`select "ciphertext" from "function_storage"`);
    for (const row of rows) expect(row.ciphertext.toString('latin1')).not.toContain('plain-text-marker');
    expect((await storageOf(fn, '/k')).body.data).toMatchObject({ key: 'k', value: 2, version: 2 });
    expect((await call('DELETE', `/functions/${fn}/storage/k?ifVersion=1`)).status).toBe(409);
    expect((await call('DELETE', `/functions/${fn}/storage/k`)).body.data).toEqual({ key: 'k', deleted: true });
    expect((await call('DELETE', `/functions/${fn}/storage/k`)).body.error?.code).toBe('storage_key_not_found');
    expect((await call('PUT', `/functions/${fn}/storage/${'k'.repeat(257)}`, { value: 1 })).status).toBe(400);
  });

  it('fails a run whose writes would exceed the function quota of 1,000 keys, writing none of them', async () => {
    const fn = await deploy(
      `module.exports = async ({ storage }) => { await storage.set('one-more', 1); await storage.set('k0', 'new'); };`,
    );
    await api.database.orm.em.fork().execute(
      `insert into "function_storage" ("function_id", "key", "version", "size", "ciphertext", "wrapped_key", "master_key_id", "updated_at")
        select ?, 'k' || i, 1, 1, '\\x00', '\\x00', 'none', now() from generate_series(0, 999) as i`,
      [fn],
    );
    const invoked = await call('POST', `/functions/${fn}/invoke`, {});
    expect(invoked.body.error?.details.name, JSON.stringify(invoked.body)).toBe('StorageQuotaError');
    expect((await storageOf(fn)).body.pagination?.total).toBe(1000);
    expect((await storageOf(fn, '/one-more')).status).toBe(404);
  });
});

import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate } from '../../src/orm.ts';
import { migrations } from '../../src/db/migrations/index.ts';
import { storedSettings } from '../../src/functions/versioned-fields.ts';
import type { TestApi } from '../support/api.ts';
import { createTestDatabase } from '../support/database.ts';
import { testApi, type ApiCall, type Envelope } from '../support/http.ts';
import { issueKey } from '../support/keys.ts';
import { until } from '../support/polling.ts';
import { startApiWithWorker, type RunningWorker } from '../support/worker.ts';

// Immutable versions (issue 30 item 3): every change of what a function runs makes one; a
// promote makes an older one current again; executions name the version they ran, and a retry
// runs that one unless asked for the latest.
let api: TestApi;
let worker: RunningWorker;
let key: string;
let call: ApiCall;
let keyId: string;
beforeAll(async () => {
  ({ api, worker } = await startApiWithWorker());
  ({ key, keyId } = await issueKey(api.database.orm));
  call = testApi(api.url, key);
});
afterAll(async () => {
  await worker.stop();
  await api.close();
});

/** Code that answers `label` (and throws when asked to). */
const answering = (label: string) =>
  `module.exports = async (context) => { if (context.params.fail) throw new Error('${label} failed'); return { label: '${label}', mode: context.environment.MODE ?? null }; };`;

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

let counter = 0;
async function deploy(code: string, extra: Record<string, unknown> = {}) {
  const created = await call('POST', '/functions', { name: `ver-${++counter}`, code, runtime: 'node18', ...extra });
  expect(created.status).toBe(201);
  return created.body.data as { id: string; version: number };
}

async function put(id: string, body: Record<string, unknown>) {
  const updated = await call('PUT', `/functions/${id}`, body);
  expect(updated.status).toBe(200);
  return updated.body.data as { version: number; code: string };
}

/** An execution once it ended. */
const ended = (id: string, executionId: string) =>
  until(
    async () => (await call('GET', `/functions/${id}/executions/${executionId}`)).body,
    (body: Envelope) => body.data?.status !== 'running',
  );

describe('versions of a function', () => {
  it('makes version 1 at create and one more at each change of what runs; lists them newest first', async () => {
    const fn = await deploy(answering('one'));
    expect(fn.version).toBe(1);
    expect((await put(fn.id, { code: answering('two') })).version).toBe(2);
    expect((await put(fn.id, { code: answering('three'), timeout: 10 })).version).toBe(3);
    // Name, description and tags are not what runs; the same code again changes nothing either.
    expect((await put(fn.id, { description: 'd', tags: ['x'], code: answering('three') })).version).toBe(3);

    const listed = await call('GET', `/functions/${fn.id}/versions?limit=2`);
    expect(listed.status).toBe(200);
    expect(listed.body.pagination).toEqual({ total: 3, limit: 2, offset: 0, hasMore: true });
    expect(listed.body.data).toEqual([
      {
        version: 3,
        current: true,
        codeSha256: sha256(answering('three')),
        keyId,
        createdAt: expect.any(String),
        runtime: 'node18',
        timeout: 10,
        environment: {},
        secrets: [],
        allowedHosts: [],
      },
      expect.objectContaining({ version: 2, current: false, timeout: 30, codeSha256: sha256(answering('two')) }),
    ]);
    expect(listed.body.data[0]).not.toHaveProperty('code');
    const rest = await call('GET', `/functions/${fn.id}/versions?limit=2&offset=2`);
    expect(rest.body.data.map((version: { version: number }) => version.version)).toEqual([1]);
    expect(rest.body.pagination).toEqual({ total: 3, limit: 2, offset: 2, hasMore: false });

    const first = await call('GET', `/functions/${fn.id}/versions/1?include_code=true`);
    expect(first.body.data).toMatchObject({ version: 1, current: false, code: answering('one'), keyId });
    expect((await call('GET', `/functions/${fn.id}/versions/1`)).body.data).not.toHaveProperty('code');
    for (const missing of ['4', '0', 'x']) {
      const answer = await call('GET', `/functions/${fn.id}/versions/${missing}`);
      expect(answer.status).toBe(404);
      expect(answer.body.error?.code).toBe('version_not_found');
    }
    expect((await call('GET', `/functions/func_doesnotexist0000000000000/versions`)).status).toBe(404);
  });

  it('gives two changes at once two numbers', async () => {
    const fn = await deploy(answering('one'));
    const both = await Promise.all([put(fn.id, { code: answering('a') }), put(fn.id, { code: answering('b') })]);
    expect(both.map((updated) => updated.version).sort()).toEqual([2, 3]);
    const listed = await call('GET', `/functions/${fn.id}/versions`);
    expect(listed.body.pagination?.total).toBe(3);
  });

  it('makes a version on a change of the environment, the secrets granted or the hosts allowed', async () => {
    const fn = await deploy(answering('env'));
    expect((await call('PUT', `/functions/${fn.id}/environment`, { MODE: 'a' })).status).toBe(200);
    const secret = await call('POST', '/secrets', { name: `S_${counter}`, value: 'v' });
    expect(secret.status).toBe(201);
    expect((await call('PUT', `/functions/${fn.id}/secrets`, { secrets: [`S_${counter}`] })).status).toBe(200);
    expect((await put(fn.id, { allowedHosts: ['api.example.com'] })).version).toBe(4);
    const listed = await call('GET', `/functions/${fn.id}/versions`);
    expect(
      listed.body.data.map((version: Record<string, unknown>) => [
        version.version,
        version.environment,
        version.secrets,
        version.allowedHosts,
      ]),
    ).toEqual([
      [4, { MODE: 'a' }, [`S_${counter}`], ['api.example.com']],
      [3, { MODE: 'a' }, [`S_${counter}`], []],
      [2, { MODE: 'a' }, [], []],
      [1, {}, [], []],
    ]);
    expect((await call('GET', `/functions/${fn.id}`)).body.data.version).toBe(4);
  });

  it('promotes version 1 back: its code and settings run again, executions say which version ran', async () => {
    const fn = await deploy(answering('one'), { environment: { MODE: 'first' } });
    await put(fn.id, { code: answering('two'), environment: { MODE: 'second' } });
    await put(fn.id, { code: answering('three') });
    const third = await call('POST', `/functions/${fn.id}/invoke`, {});
    expect(third.body.data.result).toEqual({ label: 'three', mode: 'second' });

    const promoted = await call('POST', `/functions/${fn.id}/versions/1/promote`);
    expect(promoted.status).toBe(200);
    expect(promoted.body.data).toMatchObject({ version: 1, code: answering('one'), environment: { MODE: 'first' } });
    const read = await call('GET', `/functions/${fn.id}?include_code=true`);
    expect(read.body.data).toMatchObject({ version: 1, code: answering('one') });
    const first = await call('POST', `/functions/${fn.id}/invoke`, {});
    expect(first.body.data.result).toEqual({ label: 'one', mode: 'first' });

    const listed = await call('GET', `/functions/${fn.id}/executions`);
    expect(listed.body.data.map((execution: Record<string, unknown>) => execution.functionVersion)).toEqual([1, 3]);
    const details = await call('GET', `/functions/${fn.id}/executions/${first.body.data.execution.id as string}`);
    expect(details.body.data.functionVersion).toBe(1);
    const versions = await call('GET', `/functions/${fn.id}/versions`);
    expect(versions.body.data.map((version: Record<string, unknown>) => version.current)).toEqual([false, false, true]);

    // The next change makes the version after the highest, not after the promoted one.
    expect((await put(fn.id, { code: answering('four') })).version).toBe(4);
    expect((await call('POST', `/functions/${fn.id}/versions/9/promote`)).status).toBe(404);
  });

  it('retries a version-1 execution with version 1, and with ?version=latest the current one', async () => {
    const fn = await deploy(answering('one'));
    const failed = await call('POST', `/functions/${fn.id}/invoke`, { params: { fail: true } });
    expect(failed.status).toBe(500);
    const failedId = failed.body.error!.details.executionId as string;
    await put(fn.id, { code: `module.exports = async () => ({ label: 'two' });` });

    const retried = await call('POST', `/functions/${fn.id}/executions/${failedId}/retry`);
    expect(retried.status).toBe(202);
    const again = await ended(fn.id, retried.body.data.execution.id as string);
    expect(again.data).toMatchObject({ status: 'failed', functionVersion: 1, error: { message: 'one failed' } });

    const latest = await call('POST', `/functions/${fn.id}/executions/${failedId}/retry?version=latest`);
    expect(latest.status).toBe(202);
    const current = await ended(fn.id, latest.body.data.execution.id as string);
    expect(current.data).toMatchObject({ status: 'completed', functionVersion: 2, result: { label: 'two' } });

    const wrong = await call('POST', `/functions/${fn.id}/executions/${failedId}/retry?version=2`);
    expect(wrong.status).toBe(400);

    // Under one Idempotency-Key, the query is part of the request: another version is another request.
    const keyed = (query: string) =>
      fetch(`${api.url}/v1/functions/${fn.id}/executions/${failedId}/retry${query}`, {
        method: 'POST',
        headers: { 'X-API-Key': key, 'Idempotency-Key': `retry-${fn.id}` },
      });
    expect((await keyed('')).status).toBe(202);
    expect((await keyed('?version=latest')).status).toBe(409);
  });

  it("runs the version an automation's function action pins", async () => {
    const fn = await deploy(answering('one'));
    await put(fn.id, { code: answering('two') });
    const action = { type: 'function', functionId: fn.id, functionVersion: 1 };
    const automation = { name: 'pinned', trigger: { type: 'schedule', cron: '@yearly' }, action, status: 'inactive' };
    const created = await call('POST', '/automations', automation);
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ action: { functionVersion: 1 } });
    const automationId = (created.body as { id: string }).id;
    const fired = await call('POST', `/automations/${automationId}/trigger`);
    expect(fired.status).toBe(202);
    const runs = await until(
      async () => (await call('GET', `/automations/${automationId}/runs`)).body,
      (body: Record<string, any>) => body.runs?.[0]?.status !== undefined && body.runs[0].status !== 'running',
    );
    const run = (runs as Record<string, any>).runs[0];
    expect(run.status).toBe('success');
    const execution = await call('GET', `/functions/${fn.id}/executions/${run.executionId as string}`);
    expect(execution.body.data).toMatchObject({ functionVersion: 1, result: { label: 'one' } });

    const missing = await call('POST', '/automations', { ...automation, action: { ...action, functionVersion: 3 } });
    expect(missing.status).toBe(400);
    expect(missing.body.error).toMatchObject({ code: 'INVALID_REQUEST', details: { field: 'action.functionVersion' } });
  });
});

describe('migration 0018', () => {
  it("makes each existing function's current state its version 1", async () => {
    const database = await createTestDatabase({ migrated: false });
    try {
      const before = migrations[migrations.findIndex(({ name }) => name === '0018-function-versions') - 1]!.name;
      await database.orm.migrator.up({ to: before });
      const connection = database.orm.em.getConnection();
      await connection.execute(`insert into "accounts" values ('acct_m', 'm', now(), now())`);
      await connection.execute(
        `insert into "functions" ("id", "account_id", "name", "runtime", "timeout", "code", "status", "tags", "environment", "secrets", "created_at", "updated_at")
          values ('func_m', 'acct_m', 'm', 'node16', 7, 'module.exports = async () => 1;', 'active', '{}', '{"A":"b"}', '{S}', now(), now())`,
      );
      await migrate(database.orm);
      const [row] = await connection.execute<Record<string, unknown>[]>(
        `select v.*, f."version" as "current" from "function_versions" v join "functions" f on f."id" = v."function_id"`,
      );
      expect(row).toMatchObject({
        function_id: 'func_m',
        version: 1,
        current: 1,
        code: 'module.exports = async () => 1;',
        code_sha256: sha256('module.exports = async () => 1;'),
        settings: { runtime: 'node16', timeout: 7, environment: { A: 'b' }, secrets: ['S'] },
        key_id: null,
      });
      // Made before the hosts a function may fetch from were versioned: it allows none.
      expect(storedSettings(row!.settings as object).allowedHosts).toEqual([]);
    } finally {
      await database.drop();
    }
  });
});

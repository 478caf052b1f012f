import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  api,
  call,
  create,
  error,
  keyFor,
  startAutomationsApi,
  stopAutomationsApi,
  unique,
} from '../support/automations-api.ts';

// What one account may keep of functions (issue 44, item 8), set low: two functions per account
// (the file's own account A already has two), three versions per function.
beforeAll(() =>
  startAutomationsApi({ runs: false, env: { NEOFLOW_ACCOUNT_FUNCTIONS: '2', NEOFLOW_FUNCTION_VERSIONS: '3' } }),
);
afterAll(stopAutomationsApi);

const answering = (value: number) => `module.exports = async () => ${value};`;
const newFunction = (apiKey: string, code = answering(0), extra: Record<string, unknown> = {}) =>
  call('POST', '/functions', { name: `quota-${unique()}`, code, runtime: 'node18', ...extra }, apiKey);
async function versionsOf(id: string, apiKey: string): Promise<number[]> {
  const listed = await call('GET', `/functions/${id}/versions?limit=100`, undefined, apiKey);
  return (listed.body.data as { version: number }[]).map((version) => version.version);
}

describe('functions per account', () => {
  it("refuses an account's third function with 409 function_limit_reached, and creates one again once one is deleted", async () => {
    const own = await keyFor();
    const first = await newFunction(own);
    expect((await newFunction(own)).status).toBe(201);
    const refused = await newFunction(own);
    expect(refused).toEqual({
      status: 409,
      body: {
        success: false,
        error: {
          code: 'function_limit_reached',
          message: expect.stringContaining('2 functions'),
          details: { limit: 2 },
        },
      },
    });
    // Another account is not counted with this one.
    expect((await newFunction(await keyFor())).status).toBe(201);
    const id = first.body.data.id as string;
    expect((await call('DELETE', `/functions/${id}`, undefined, own)).status).toBe(200);
    expect((await newFunction(own)).status).toBe(201);
  });

  it('holds the limit under creates racing for the last places: of 6 sent at once, 2 are created', async () => {
    const own = await keyFor();
    const answers = await Promise.all(Array.from({ length: 6 }, () => newFunction(own)));
    expect(answers.filter((answer) => answer.status === 201)).toHaveLength(2);
    expect(answers.filter((answer) => answer.status === 409)).toHaveLength(4);
  });
});

describe('versions per function', () => {
  it('keeps three versions, pruning the oldest, never the one an automation pins nor the one last promoted', async () => {
    const own = await keyFor();
    const id = (await newFunction(own, answering(1))).body.data.id as string;
    for (const value of [2, 3]) await call('PUT', `/functions/${id}`, { code: answering(value) }, own);
    // Version 2 is pinned by an automation; version 1 is a rollback's target.
    await create({ action: { type: 'function', functionId: id, functionVersion: 2 } }, own);
    expect((await call('POST', `/functions/${id}/versions/1/promote`, undefined, own)).status).toBe(200);
    for (const value of [4, 5, 6]) {
      expect((await call('PUT', `/functions/${id}`, { code: answering(value) }, own)).status).toBe(200);
    }
    // 3, 4 and 5 went in turn, each the oldest that nothing kept.
    expect(await versionsOf(id, own)).toEqual([6, 2, 1]);
    const current = await call('GET', `/functions/${id}/versions/6?include_code=true`, undefined, own);
    expect(current.body.data).toMatchObject({ current: true, code: answering(6) });
    // A change of what does not run (name, tags) makes no version and prunes nothing.
    await call('PUT', `/functions/${id}`, { name: `renamed-${unique()}`, tags: ['x'] }, own);
    expect(await versionsOf(id, own)).toEqual([6, 2, 1]);
  });

  it('never prunes a version a running execution runs; a retry of one pruned is a 404 version_not_found', async () => {
    const own = await keyFor();
    const id = (await newFunction(own, answering(1))).body.data.id as string;
    await call('PUT', `/functions/${id}`, { code: answering(2) }, own);
    // Version 1 ran and failed; version 2 runs now.
    const failed = await executionAt(id, 1, 'failed');
    await executionAt(id, 2, 'running');
    for (const value of [3, 4, 5]) await call('PUT', `/functions/${id}`, { code: answering(value) }, own);
    expect(await versionsOf(id, own)).toEqual([5, 4, 2]);
    const retried = await call('POST', `/functions/${id}/executions/${failed}/retry`, undefined, own);
    expect(retried).toMatchObject({ status: 404, body: { error: { code: 'version_not_found' } } });
  });
});

let executions = 0;
/** An execution of version `version` of the function, stored as a run would store it. */
async function executionAt(functionId: string, version: number, status: 'failed' | 'running') {
  const id = `exec_quotas${String(++executions).padStart(16, '0')}`;
  await api.database.orm.em
    .fork()
    .getConnection()
    .execute(
      `insert into "executions" ("id", "function_id", "account_id", "status", "params", "error", "logs", "trigger",
       "secrets_read", "started_at", "function_version")
     select ?, "id", "account_id", ?, '{}', ?, '[]', '{"type":"api"}', '[]', now(), ? from "functions" where "id" = ?`,
      [
        id,
        status,
        status === 'failed' ? JSON.stringify({ name: 'Error', message: 'v1', stack: '' }) : null,
        version,
        functionId,
      ],
    );
  return id;
}

describe('POST /automations/{id}/test of a function action', () => {
  const payload = { payload: { type: 'schedule', scheduledAt: '2026-01-01T00:00:00.000Z' } };

  it('needs functions:invoke beside automations:write: 403 FORBIDDEN naming it otherwise', async () => {
    const account = `quota-test-${unique()}`;
    const writer = await keyFor(['automations:write', 'automations:read', 'functions:write'], account);
    const fn = (await newFunction(writer, answering(7))).body.data.id as string;
    const automation = await create({ action: { type: 'function', functionId: fn } }, writer);
    const refused = await call('POST', `/automations/${automation.id}/test`, payload, writer);
    expect(refused).toEqual(error(403, 'FORBIDDEN', { requiredScope: 'functions:invoke' }));
    const invoker = await keyFor(['automations:write', 'functions:invoke'], account);
    const tested = await call('POST', `/automations/${automation.id}/test`, payload, invoker);
    expect(tested).toMatchObject({
      status: 200,
      body: { dryRun: { type: 'function', status: 'completed', result: 7 } },
    });
    // A contract action runs no function: automations:write alone tests it.
    const contract = await create({}, writer);
    expect((await call('POST', `/automations/${contract.id}/test`, payload, writer)).status).toBe(200);
  });

  it("stops a dry run at 10 s whatever the function's own timeout", async () => {
    const own = await keyFor();
    const waits = 'module.exports = async () => { await new Promise((resolve) => setTimeout(resolve, 60_000)); };';
    const fn = (await newFunction(own, waits, { timeout: 120 })).body.data.id as string;
    const automation = await create({ action: { type: 'function', functionId: fn } }, own);
    const startedAt = Date.now();
    const tested = await call('POST', `/automations/${automation.id}/test`, payload, own);
    const tookMs = Date.now() - startedAt;
    expect(tested).toMatchObject({
      status: 200,
      body: {
        dryRun: { status: 'failed', error: { name: 'TimeoutError', message: expect.stringContaining('10000 ms') } },
      },
    });
    expect(tookMs).toBeGreaterThanOrEqual(10_000);
    expect(tookMs).toBeLessThan(30_000);
  }, 60_000);
});

import proto from '@temporalio/proto';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import type { TestApi } from '../support/api.ts';
import { testApi, type ApiCall, type Envelope } from '../support/http.ts';
import { issueKey } from '../support/keys.ts';
import { until } from '../support/polling.ts';
import { startApiWithWorker, type RunningWorker } from '../support/worker.ts';

const taskStarted = proto.temporal.api.enums.v1.PendingWorkflowTaskState.PENDING_WORKFLOW_TASK_STATE_STARTED;

let api: TestApi;
let worker: RunningWorker;
let key: string;
let call: ApiCall;
let account: string;
beforeAll(async () => {
  ({ api, worker } = await startApiWithWorker());
  ({ key, account } = await issueKey(api.database.orm));
  call = testApi(api.url, key);
});
afterAll(async () => {
  await worker.stop();
  await api.close();
});

let counter = 0;
async function deploy(code: string, extra: Record<string, unknown> = {}): Promise<string> {
  const created = await call('POST', '/functions', { name: `inv-${++counter}`, code, runtime: 'node18', ...extra });
  expect(created.status).toBe(201);
  return created.body.data!.id as string;
}

describe('invoking functions', () => {
  it('runs a synchronous invocation and answers its result', async () => {
    const id = await deploy('module.exports = async (context) => ({ hello: context.params.name });');
    const invoked = await call('POST', `/functions/${id}/invoke`, { params: { name: 'neo' } });
    expect(invoked.status).toBe(200);
    const workflow = await api.services.temporal.client.workflow.getHandle(invoked.body.data!.execution.id).describe();
    expect(workflow.type).toBe('executeFunction');
    expect(workflow.typedSearchAttributes.getAll().map(({ key, value }) => [key.name, value])).toEqual(
      expect.arrayContaining([
        ['NeoflowFunctionId', id],
        ['NeoflowTrigger', 'api'],
        ['NeoflowAccountId', expect.stringMatching(/^acct_/)],
      ]),
    );
    expect(invoked.body.data).toEqual({
      execution: {
        id: expect.stringMatching(/^exec_/),
        status: 'completed',
        startedAt: expect.any(String),
        completedAt: expect.any(String),
        duration: expect.any(Number),
      },
      result: { hello: 'neo' },
    });
  });

  it('answers an execution while it runs without completedAt or duration keys, in the invoke, its details and the list', async () => {
    // Atomics.wait holds the run without using a core.
    const id = await deploy(
      'module.exports = async () => { Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 3000); return 1; };',
    );
    const invoked = await call('POST', `/functions/${id}/invoke`, { async: true });
    expect(invoked.status).toBe(202);
    const executionId = invoked.body.data!.execution.id as string;
    const details = (await call('GET', `/functions/${id}/executions/${executionId}`)).body.data!;
    const listed = (await call('GET', `/functions/${id}/executions`)).body.data as unknown as Record<string, unknown>[];
    for (const running of [invoked.body.data!.execution, details, listed[0]!]) {
      expect(running).toMatchObject({ id: executionId, status: 'running' });
      expect(Object.keys(running as object)).not.toContain('completedAt');
      expect(Object.keys(running as object)).not.toContain('duration');
    }
  });

  it('answers an asynchronous invocation with 202, and the run completes in the history', async () => {
    const id = await deploy('async function main(context) { context.log.info("working"); return 42; }');
    const invoked = await call('POST', `/functions/${id}/invoke`, { async: true });
    expect(invoked.status).toBe(202);
    expect(invoked.body.data).toEqual({
      execution: {
        id: expect.stringMatching(/^exec_/),
        status: 'running',
        startedAt: expect.any(String),
      },
    });
    const executionId = invoked.body.data!.execution.id as string;
    let details: Envelope = { success: false };
    for (let tries = 0; tries < 100; tries++) {
      details = (await call('GET', `/functions/${id}/executions/${executionId}`)).body;
      if (details.data?.status !== 'running') break;
      await new Promise((resolveWait) => setTimeout(resolveWait, 100));
    }
    expect(details.data).toMatchObject({
      id: executionId,
      functionId: id,
      status: 'completed',
      result: 42,
      params: {},
      trigger: { type: 'api' },
      logs: [{ level: 'info', message: 'working', timestamp: expect.any(String) }],
    });
  });

  it('answers 500 execution_error for a function that throws, stores it failed, and retries it', async () => {
    const id = await deploy('exports.handler = async () => { throw new TypeError("bad input"); };');
    const invoked = await call('POST', `/functions/${id}/invoke`, { params: { n: 1 } });
    expect(invoked.status).toBe(500);
    expect(invoked.body.error).toMatchObject({
      code: 'execution_error',
      message: 'bad input',
      details: { name: 'TypeError', message: 'bad input', stack: expect.any(String), executionId: expect.any(String) },
    });
    const executionId = invoked.body.error!.details.executionId as string;
    const listed = await call('GET', `/functions/${id}/executions?status=failed`);
    expect(listed.body.data).toEqual([expect.objectContaining({ id: executionId, hasError: true, hasResult: false })]);
    const retried = await call('POST', `/functions/${id}/executions/${executionId}/retry`);
    expect(retried.status).toBe(202);
    const retryId = retried.body.data!.execution.id as string;
    expect((await call('GET', `/functions/${id}/executions/${retryId}`)).body.data).toMatchObject({
      params: { n: 1 },
      trigger: { type: 'retry', retryOf: executionId },
    });
  });

  it('marks each ended execution\'s workflow with NeoflowStatus: the query NeoflowStatus = "failed" finds a failed one, not a completed one', async () => {
    const failing = await deploy('module.exports = async () => { throw new Error("no"); };');
    const passing = await deploy('module.exports = async () => 1;');
    const failed = (await call('POST', `/functions/${failing}/invoke`, {})).body.error!.details.executionId as string;
    const completed = (await call('POST', `/functions/${passing}/invoke`, {})).body.data!.execution.id as string;
    const { client } = api.services.temporal;
    const found = async (query: string) => {
      const ids: string[] = [];
      for await (const workflow of client.workflow.list({ query })) ids.push(workflow.workflowId);
      return ids;
    };
    const inBoth = `WorkflowId IN ("${failed}", "${completed}")`;
    // Visibility follows the history a moment later.
    const failedOnes = await until(
      () => found(`NeoflowStatus = "failed" AND ${inBoth}`),
      (ids) => ids.length > 0,
    );
    expect(failedOnes).toEqual([failed]);
    const completedOnes = await until(
      () => found(`NeoflowStatus = "completed" AND ${inBoth}`),
      (ids) => ids.length > 0,
    );
    expect(completedOnes).toEqual([completed]);
  });

  it('stores the run of code that writes lone surrogates and a 10 MiB error, as sent with U+FFFD and capped', async () => {
    const id = await deploy(`module.exports = async ({ log }) => {
      log.info('log \\ud800');
      const error = new Error('\\udc00' + 'e'.repeat(10 * 1024 * 1024));
      error.name = 'Odd\\ud800Error';
      throw error;
    };`);
    const invoked = await call('POST', `/functions/${id}/invoke`, {});
    expect(invoked.status).toBe(500);
    expect(invoked.body.error).toMatchObject({ code: 'execution_error', details: { name: 'Odd\uFFFDError' } });
    expect(JSON.stringify(invoked.body).length).toBeLessThan(64 * 1024);
    const executionId = invoked.body.error!.details.executionId as string;
    const stored = await call('GET', `/functions/${id}/executions/${executionId}`);
    expect(stored.body.data).toMatchObject({
      status: 'failed',
      logs: [{ message: 'log \uFFFD' }],
      error: { name: 'Odd\uFFFDError', message: expect.stringMatching(/^\uFFFDe+$/) },
    });
    expect(Buffer.byteLength(stored.body.data.error.message)).toBe(16 * 1024);
  });

  it('stops a function at its timeout with TimeoutError', async () => {
    const id = await deploy('module.exports = async () => { await null; for (;;) {} };', { timeout: 1 });
    const started = performance.now();
    const invoked = await call('POST', `/functions/${id}/invoke`, {});
    expect(performance.now() - started).toBeLessThan(5000);
    expect(invoked.body.error).toMatchObject({ code: 'execution_error', details: { name: 'TimeoutError' } });
  });

  it('gives granted secrets to the function and masks them in what it stores', async () => {
    const secret = await call('POST', '/secrets', { name: 'FEED_TOKEN', value: 'canary-51d3' });
    expect(secret.status).toBe(201);
    const id = await deploy(
      'module.exports = async (context) => { context.log.info("token " + context.secrets.FEED_TOKEN); ' +
        'const viaGet = await context.secrets.get("FEED_TOKEN"); return { same: viaGet === context.secrets.FEED_TOKEN }; };',
      { secrets: ['FEED_TOKEN'] },
    );
    const invoked = await call('POST', `/functions/${id}/invoke`, {});
    expect(invoked.body.data!.result).toEqual({ same: true });
    const details = await call('GET', `/functions/${id}/executions/${invoked.body.data!.execution.id}`);
    expect(details.body.data!.logs[0].message).toBe('token [secret:FEED_TOKEN]');
    expect(JSON.stringify(details.body)).not.toContain('canary-51d3');
  });

  it('reads a real GAS balance from the neo-go node through getBalance', async () => {
    const { address } = inject('devWallet');
    const id = await deploy(
      `module.exports = async (context) => context.services.blockchain.getBalance("${address}", "GAS");`,
    );
    const invoked = await call('POST', `/functions/${id}/invoke`, {});
    expect(invoked.status).toBe(200);
    expect(invoked.body.data!.result).toMatchObject({ decimals: 8, amount: expect.stringMatching(/^\d+$/) });
    expect(BigInt(invoked.body.data!.result.amount as string)).toBeGreaterThan(0n);
  });

  it('cancels a running execution when its function is deleted, freeing the worker at once', async () => {
    const id = await deploy('module.exports = async () => { for (;;) { await null; } };', { timeout: 120 });
    const invoked = await call('POST', `/functions/${id}/invoke`, { async: true });
    const executionId = invoked.body.data!.execution.id as string;
    // Running: its workflow task (in which the code runs as a local activity) has started.
    const running = await until(
      async () => (await api.services.temporal.client.workflow.getHandle(executionId).describe()).raw,
      (raw) => raw.pendingWorkflowTask?.state === taskStarted,
      30_000,
      50,
    );
    expect(running.pendingWorkflowTask?.state).toBe(taskStarted);
    const started = performance.now();
    expect((await call('DELETE', `/functions/${id}`)).status).toBe(200);
    const handle = api.services.temporal.client.workflow.getHandle(executionId);
    let status = 'RUNNING';
    while (status === 'RUNNING' && performance.now() - started < 20_000) {
      status = (await handle.describe()).status.name;
      await new Promise((resolveWait) => setTimeout(resolveWait, 200));
    }
    expect(status).toBe('CANCELLED');
    const next = await deploy('module.exports = async () => "free";');
    expect((await call('POST', `/functions/${next}/invoke`, {})).body.data!.result).toBe('free');
  });

  it('filters the execution history by status and start date, newest first', async () => {
    const id = await deploy('module.exports = async (context) => context.params.n;');
    const before = new Date().toISOString();
    for (const n of [1, 2, 3]) await call('POST', `/functions/${id}/invoke`, { params: { n } });
    const after = new Date().toISOString();
    const all = await call('GET', `/functions/${id}/executions?status=completed&limit=2`);
    expect(all.body.data!.map((item: { params: { n: number } }) => item.params.n)).toEqual([3, 2]);
    expect(all.body).toMatchObject({ pagination: { total: 3, limit: 2, offset: 0, hasMore: true } });
    const inWindow = await call('GET', `/functions/${id}/executions?start_date=${before}&end_date=${after}`);
    expect(inWindow.body.data).toHaveLength(3);
    const later = await call('GET', `/functions/${id}/executions?start_date=${after}`);
    expect(later.body.data).toEqual([]);
    expect((await call('GET', `/functions/${id}/executions?start_date=yesterday`)).status).toBe(400);
  });

  it('runs a body-less invoke (no Content-Type, nothing sent) synchronously with empty params', async () => {
    const id = await deploy('module.exports = async (context) => ({ params: context.params });');
    const invoked = await fetch(`${api.url}/v1/functions/${id}/invoke`, {
      method: 'POST',
      headers: { 'X-API-Key': key },
    });
    const answer = (await invoked.json()) as Envelope;
    expect({ status: invoked.status, data: answer.data }).toEqual({
      status: 200,
      data: {
        execution: expect.objectContaining({ id: expect.stringMatching(/^exec_/), status: 'completed' }),
        result: { params: {} },
      },
    });
  });

  it('validates the invoke body and execution lookups', async () => {
    const id = await deploy('module.exports = async () => 1;');
    expect((await call('POST', `/functions/${id}/invoke`, { params: [1] })).body.error?.code).toBe('invalid_request');
    expect((await call('POST', `/functions/${id}/invoke`, { async: 'yes' })).body.error?.code).toBe('invalid_request');
    expect((await call('GET', `/functions/${id}/executions/exec_missing`)).body.error?.code).toBe(
      'execution_not_found',
    );
    expect((await call('GET', `/functions/${id}/executions?status=done`)).body.error?.code).toBe('invalid_request');
  });

  it('reads the invoked function in the statement that admits its key, not in one of its own', async () => {
    const id = await deploy('module.exports = async () => 1;');
    const statements = vi.spyOn(api.database.orm.em.getConnection(), 'execute');
    let sent: unknown[][];
    try {
      expect((await call('POST', `/functions/${id}/invoke`, {})).status).toBe(200);
      expect((await call('POST', `/functions/${id}/invoke`, { async: true })).status).toBe(202);
    } finally {
      sent = [...statements.mock.calls];
      statements.mockRestore();
    }
    const readsOfIt = sent
      .filter(([sql, parameters]) => /from "functions"/.test(String(sql)) && (parameters as unknown[]).includes(id))
      .map(([sql]) => String(sql));
    expect(readsOfIt).toHaveLength(2);
    for (const sql of readsOfIt) expect(sql).toContain('"api_keys"');
  });
});

/** A function that runs until its execution is cancelled (its function deleted) or 120 s pass. */
const endless = 'module.exports = async () => { for (;;) { await null; } };';

/** The ids of the function's executions, as its owner's key lists them. */
async function executionIds(functionId: string): Promise<string[]> {
  const listed = await call('GET', `/functions/${functionId}/executions?limit=100`);
  return (listed.body.data as { id: string }[]).map((execution) => execution.id);
}

describe('invoking functions: access and retries', () => {
  it('needs functions:invoke to invoke and retry, and functions:read to read the history', async () => {
    const id = await deploy('module.exports = async () => { throw new Error("always"); };');
    const failed = (await call('POST', `/functions/${id}/invoke`, {})).body.error!.details.executionId as string;
    const reader = (await issueKey(api.database.orm, ['functions:read'], account)).key;
    const invoker = (await issueKey(api.database.orm, ['functions:invoke'], account)).key;
    const forbidden = {
      status: 403,
      body: { error: { code: 'forbidden', details: { requiredScope: 'functions:invoke' } } },
    };
    expect(await call('POST', `/functions/${id}/invoke`, {}, reader)).toMatchObject(forbidden);
    expect(await call('POST', `/functions/${id}/executions/${failed}/retry`, undefined, reader)).toMatchObject(
      forbidden,
    );
    expect(await executionIds(id)).toEqual([failed]);
    const invoked = await call('POST', `/functions/${id}/invoke`, {}, invoker);
    expect(invoked).toMatchObject({ status: 500, body: { error: { code: 'execution_error', message: 'always' } } });
    expect(await call('POST', `/functions/${id}/executions/${failed}/retry`, undefined, invoker)).toMatchObject({
      status: 202,
    });
    expect(await call('GET', `/functions/${id}/executions`, undefined, invoker)).toMatchObject({
      status: 403,
      body: { error: { code: 'forbidden', details: { requiredScope: 'functions:read' } } },
    });
    expect(await executionIds(id)).toHaveLength(3);
  });

  it('answers 409 conflict to a retry of a completed or a still running execution, and starts nothing', async () => {
    const quick = await deploy('module.exports = async () => 1;');
    const completed = (await call('POST', `/functions/${quick}/invoke`, {})).body.data!.execution.id as string;
    const retriedCompleted = await call('POST', `/functions/${quick}/executions/${completed}/retry`);
    expect(retriedCompleted).toMatchObject({ status: 409, body: { error: { code: 'conflict' } } });
    expect(retriedCompleted.body.error!.message).toContain('completed');
    expect(await executionIds(quick)).toEqual([completed]);

    const slow = await deploy(endless, { timeout: 120 });
    const running = (await call('POST', `/functions/${slow}/invoke`, { async: true })).body.data!.execution
      .id as string;
    const retriedRunning = await call('POST', `/functions/${slow}/executions/${running}/retry`);
    expect(retriedRunning).toMatchObject({ status: 409, body: { error: { code: 'conflict' } } });
    expect(retriedRunning.body.error!.message).toContain('running');
    expect(await executionIds(slow)).toEqual([running]);
    expect((await call('DELETE', `/functions/${slow}`)).status).toBe(200);
  });

  it("answers another account's invoke, history, execution and retry exactly like a missing function's, running nothing", async () => {
    const id = await deploy('module.exports = async () => { throw new Error("owner only"); };');
    const failed = (await call('POST', `/functions/${id}/invoke`, {})).body.error!.details.executionId as string;
    const other = (await issueKey(api.database.orm)).key;
    const missing = 'func_doesnotexist00000000000';
    for (const [method, path, body] of [
      ['POST', '/invoke', {}],
      ['POST', '/invoke', { async: true }],
      ['GET', '/executions', undefined],
      ['GET', `/executions/${failed}`, undefined],
      ['POST', `/executions/${failed}/retry`, undefined],
    ] as const) {
      const foreign = await call(method, `/functions/${id}${path}`, body, other);
      expect(foreign).toEqual(await call(method, `/functions/${missing}${path}`, body, other));
      expect(foreign).toMatchObject({ status: 404, body: { error: { code: 'function_not_found' } } });
    }
    expect(await executionIds(id)).toEqual([failed]);
  });
});

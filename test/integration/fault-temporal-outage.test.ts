import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { freePort } from '../../src/net/ports.ts';
import { ensureGoProgram, temporalCli } from '../../src/stack/binaries.ts';
import { startTemporalDev, type TemporalDevServer } from '../../src/stack/temporal-dev.ts';
import { startTestApi, type TestApi } from '../support/api.ts';
import { testApi, type ApiCall, type Envelope } from '../support/http.ts';
import { issueKey } from '../support/keys.ts';
import { until } from '../support/polling.ts';
import { scratchDataDir } from '../support/scratch-services.ts';
import { startTestWorker, type RunningWorker } from '../support/worker.ts';

// A Temporal server of this file's own, stopped and started again (its state in a file kept
// across), under an API and a worker that sweep every second.
let scratch: string;
let temporalPath: string;
let port: number;
let temporal: TemporalDevServer | undefined;
let api: TestApi;
let worker: RunningWorker;
let key: string;
let call: ApiCall;
let functionId: string;
let automationId: string;

const startTemporal = async () => {
  temporal = await startTemporalDev({
    temporalPath,
    port,
    uiPort: undefined,
    uiCodecEndpoint: undefined,
    dbFile: join(scratch, 'temporal.db'),
    logFile: join(scratch, 'temporal.log'),
    namespace: 'default',
  });
  return temporal;
};
const stopTemporal = async () => {
  await temporal?.stop();
  temporal = undefined;
};

beforeAll(async () => {
  scratch = await scratchDataDir('neoflow-temporal-outage-');
  temporalPath = await ensureGoProgram(temporalCli, loadConfig({}).binDir, () => {});
  port = await freePort();
  const { address } = await startTemporal();
  const taskQueue = `outage-${randomBytes(4).toString('hex')}`;
  const env = { NEOFLOW_TASK_QUEUE: taskQueue, NEOFLOW_RECOVERY_SECONDS: '1' };
  api = await startTestApi([], env, { temporalAddress: address });
  ({ key } = await issueKey(api.database.orm));
  call = testApi(api.url, key);
  worker = await startTestWorker(api.database.url, taskQueue, { ...env, TEMPORAL_ADDRESS: address });

  const fn = await call('POST', '/functions', {
    name: 'doubles',
    runtime: 'node18',
    code: 'module.exports = async (context) => context.params.n * 2;',
  });
  expect(fn.status, JSON.stringify(fn.body)).toBe(201);
  functionId = fn.body.data.id as string;
  const created = await call('POST', '/automations', {
    name: 'yearly',
    trigger: { type: 'schedule', cron: '@yearly' },
    action: { type: 'function', functionId },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  automationId = (created.body as unknown as { id: string }).id;
}, 120_000);

afterAll(async () => {
  await worker?.stop();
  await api?.close();
  await stopTemporal();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

/** An invoke under an Idempotency-Key. */
async function invoke(body: unknown, idempotencyKey: string) {
  const response = await fetch(`${api.url}/v1/functions/${functionId}/invoke`, {
    method: 'POST',
    headers: { 'X-API-Key': key, 'Content-Type': 'application/json', 'Idempotency-Key': idempotencyKey },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Envelope, headers: response.headers };
}

const schedule = () => api.services.temporal.client.schedule.getHandle(automationId).describe();

describe('fault: the Temporal server stopped, then started again', () => {
  let invoked: string;
  let fired: string;

  it('GET /automations/{id} answers 200 with its next fire time while Temporal is stopped', async () => {
    await stopTemporal();
    const got = await call('GET', `/automations/${automationId}`);
    expect(got.status, JSON.stringify(got.body)).toBe(200);
    expect((got.body as any).executionStats.nextExecution).toMatch(/-01-01T00:00:00\.000Z$/);
  }, 60_000);

  it('PATCH while Temporal is stopped answers 200, the row changed', async () => {
    const patched = await call('PATCH', `/automations/${automationId}`, {
      status: 'inactive',
      trigger: { type: 'schedule', cron: '0 12 * * *', timezone: 'Europe/Paris' },
    });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    expect(patched.body).toMatchObject({ status: 'inactive', executionStats: { nextExecution: null } });
  }, 60_000);

  it('an invoke whose workflow cannot start answers 202 with its execution, and a retry under its key the same', async () => {
    const first = await invoke({ params: { n: 21 } }, 'outage-invoke');
    expect(first.status, JSON.stringify(first.body)).toBe(202);
    invoked = first.body.data.execution.id as string;
    expect(first.body.data.execution).toMatchObject({ id: invoked, status: 'running' });
    const again = await invoke({ params: { n: 21 } }, 'outage-invoke');
    expect(again.status, JSON.stringify(again.body)).toBe(202);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.data.execution.id).toBe(invoked);
  }, 120_000);

  it('a manual fire whose run cannot start answers 202 with its run', async () => {
    const answer = await call('POST', `/automations/${automationId}/trigger`);
    expect(answer.status, JSON.stringify(answer.body)).toBe(202);
    fired = (answer.body as any).run.id as string;
    expect((answer.body as any).run).toMatchObject({ id: fired, status: 'running' });
  }, 60_000);

  it('once Temporal is back: the schedule matches the row, and the invoked execution and the fired run each ran once', async () => {
    await startTemporal();
    const described = await until(
      () => schedule().catch(() => undefined),
      (description) => description?.state.paused === true,
      90_000,
    );
    expect(described?.state).toMatchObject({
      paused: true,
      note: 'automation inactive: cron "0 12 * * *" in Europe/Paris',
    });
    const execution = await until(
      () => call('GET', `/functions/${functionId}/executions/${invoked}`),
      (answer) => answer.body.data?.status !== 'running',
      90_000,
    );
    expect(execution.body.data).toMatchObject({ status: 'completed', result: 42 });
    const run = await until(
      () => call('GET', `/automations/${automationId}/runs/${fired}`),
      (answer) => (answer.body as any).status !== 'running',
      90_000,
    );
    expect(run.body).toMatchObject({ id: fired, status: 'success' });
    // The invoke once, and the fire's action once.
    const all = await call('GET', `/functions/${functionId}/executions`);
    expect(all.body.pagination?.total).toBe(2);
    // Back to active: the reconciler and the request agree on what runs.
    const resumed = await call('PATCH', `/automations/${automationId}`, { status: 'active' });
    expect(resumed.status).toBe(200);
    expect((await schedule()).state).toMatchObject({
      paused: false,
      note: 'automation active: cron "0 12 * * *" in Europe/Paris',
    });
  }, 240_000);
});

import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { CONST } from '@cityofzion/neon-js';
import { createKey } from '../../src/auth/keys.service.ts';
import { freePort } from '../../src/net/ports.ts';
import { startTestApi, type TestApi } from '../support/api.ts';
import { testApi } from '../support/http.ts';
import { issueKey, testMasters } from '../support/keys.ts';
import { until } from '../support/polling.ts';
import { testOperatorToken, testWorkerEnv } from '../support/temporal.ts';
import { startWorkerProcess, type WorkerProcess } from '../support/worker-process.ts';

// The API runs no code here (no worker of its own): every run, block and action is the worker
// process's, so each endpoint is seen to count what happens in its own process.
let api: TestApi;
let worker: WorkerProcess;
let scratch: string;
let workerMetrics: string;
beforeAll(async () => {
  const taskQueue = `metrics-${randomBytes(4).toString('hex')}`;
  scratch = await mkdtemp(join(tmpdir(), 'neoflow-metrics-'));
  api = await startTestApi([], { NEOFLOW_TASK_QUEUE: taskQueue });
  const port = await freePort();
  workerMetrics = `http://127.0.0.1:${port}/metrics`;
  const env = testWorkerEnv(api.database.url, { NEOFLOW_WORKER_METRICS_PORT: String(port) });
  worker = await startWorkerProcess(
    api.database.url,
    taskQueue,
    join(scratch, 'data'),
    join(scratch, 'worker.log'),
    env,
  );
}, 120_000);
afterAll(async () => {
  await worker?.stop();
  await api?.close();
  await rm(scratch, { recursive: true, force: true });
});

const asOperator = { Authorization: `Bearer ${testOperatorToken}` };

async function scrape(url: string): Promise<string> {
  const answer = await fetch(url, { headers: asOperator });
  expect(answer.status).toBe(200);
  return answer.text();
}

/** The value of one series (`name{labels}`), 0 when it is not there yet. */
function valueOf(text: string, series: string): number {
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : 0;
}

it('counts requests, 429s, runs, failures, block matches and follower lag, each on the endpoint of the process where it happened', async () => {
  const { key } = await issueKey(api.database.orm);
  const call = testApi(api.url, key);
  const deploy = async (code: string) =>
    (await call('POST', '/functions', { name: `m-${randomBytes(3).toString('hex')}`, runtime: 'node18', code })).body
      .data.id as string;
  const passing = await deploy('module.exports = async () => 1;');
  const failing = await deploy('module.exports = async () => { throw new TypeError("no"); };');
  expect((await call('POST', `/functions/${passing}/invoke`, {})).status).toBe(200);
  expect((await call('POST', `/functions/${failing}/invoke`, {})).status).toBe(500);

  // A key allowed one request a minute: its second is refused.
  const slow = await createKey(api.database.orm.em.fork(), testMasters, `metrics-${Date.now()}`, ['*'], {
    rate: { requests: 1, windowSeconds: 60 },
  });
  await call('GET', '/account', undefined, slow.key);
  expect((await call('GET', '/account', undefined, slow.key)).status).toBe(429);

  // Every block's GAS rewards are Transfers: the watcher matches at the next block.
  const created = await call('POST', '/automations', {
    name: 'every block',
    trigger: { type: 'blockchain', scriptHash: `0x${CONST.NATIVE_CONTRACT_HASH.GasToken}`, event: 'Transfer' },
    action: { type: 'function', functionId: passing },
  });
  const automationId = (created.body as unknown as { id: string }).id;
  const fromWorker = await until(
    () => scrape(workerMetrics),
    (text) => valueOf(text, 'neoflow_automation_runs_total{trigger="blockchain",status="success"}') >= 1,
    60_000,
  );
  await call('PATCH', `/automations/${automationId}`, { status: 'inactive' });

  expect(valueOf(fromWorker, 'neoflow_executions_total{status="completed",trigger="api"}')).toBeGreaterThanOrEqual(1);
  expect(valueOf(fromWorker, 'neoflow_executions_total{status="failed",trigger="api"}')).toBeGreaterThanOrEqual(1);
  expect(valueOf(fromWorker, 'neoflow_sandbox_failures_total{name="TypeError"}')).toBeGreaterThanOrEqual(1);
  expect(
    valueOf(fromWorker, 'neoflow_executions_total{status="completed",trigger="automation"}'),
  ).toBeGreaterThanOrEqual(1);
  expect(fromWorker).toMatch(/^neoflow_block_follower_lag_blocks\{network="\d+"\} \d+$/m);
  expect(fromWorker).toContain('neoflow_process_cpu_seconds_total');

  const fromApi = await scrape(`${api.url}/metrics`);
  expect(valueOf(fromApi, 'neoflow_rate_limited_total')).toBeGreaterThanOrEqual(1);
  expect(
    valueOf(fromApi, 'neoflow_http_requests_total{method="POST",route="/v1/functions/:id/invoke",status="200"}'),
  ).toBeGreaterThanOrEqual(1);
  expect(
    valueOf(fromApi, 'neoflow_http_requests_total{method="GET",route="/v1/account/*",status="429"}'),
  ).toBeGreaterThanOrEqual(1);
  expect(fromApi).toContain('neoflow_http_request_duration_seconds_bucket');
  // The API ran no code: its execution counters did not move.
  expect(valueOf(fromApi, 'neoflow_executions_total{status="completed",trigger="api"}')).toBe(0);
});

it('answers metrics to the operator token only, on both endpoints', async () => {
  expect((await fetch(`${api.url}/metrics`)).status).toBe(401);
  expect((await fetch(`${api.url}/metrics`, { headers: { Authorization: 'Bearer not-the-token' } })).status).toBe(401);
  expect((await fetch(workerMetrics)).status).toBe(401);
  expect((await fetch(workerMetrics, { headers: { 'X-API-Key': testOperatorToken } })).status).toBe(401);
});

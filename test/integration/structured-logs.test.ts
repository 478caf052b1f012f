import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { freePort } from '../../src/net/ports.ts';
import { waitFor, type ManagedProcess } from '../../src/stack/process.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { testApi } from '../support/http.ts';
import { issueKey } from '../support/keys.ts';
import { spawnNeoflow } from '../support/neoflow-command.ts';
import { until } from '../support/polling.ts';
import { testWorkerEnv } from '../support/temporal.ts';

let database: TestDatabase;
let scratch: string;
let api: ManagedProcess;
let url: string;
let logFile: string;
beforeAll(async () => {
  database = await createTestDatabase();
  scratch = await mkdtemp(join(tmpdir(), 'neoflow-logs-'));
  logFile = join(scratch, 'api.log');
  const port = await freePort();
  url = `http://127.0.0.1:${port}`;
  // Its output is a file: JSON lines. At debug, the SDK logs each run's steps.
  api = spawnNeoflow(
    'api',
    testWorkerEnv(database.url, {
      NEOFLOW_LOG_LEVEL: 'debug',
      NEOFLOW_API_PORT: String(port),
      NEOFLOW_TASK_QUEUE: `logs-${randomBytes(4).toString('hex')}`,
      NEOFLOW_DATA_DIR: join(scratch, 'data'),
    }),
    logFile,
  );
  await waitFor('neoflow api', async () => ((await fetch(`${url}/v1/health`)).ok ? true : undefined), {
    timeoutMs: 90_000,
    aborted: api.exited,
  });
}, 120_000);
afterAll(async () => {
  await api?.stop();
  await database?.drop();
  await rm(scratch, { recursive: true, force: true });
});

const lines = async () =>
  (await readFile(logFile, 'utf8'))
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);

it("writes one JSON object a line, a request's with its request id and a run's with its workflow (execution) id", async () => {
  const { key } = await issueKey(database.orm);
  const created = await testApi(url, key)('POST', '/functions', {
    name: 'logged',
    runtime: 'node18',
    code: 'module.exports = async () => 1;',
  });
  const invoked = await fetch(`${url}/v1/functions/${created.body.data.id as string}/invoke`, {
    method: 'POST',
    headers: { 'X-API-Key': key, 'Content-Type': 'application/json', 'X-Request-Id': 'req-logs-1' },
    body: '{}',
  });
  const executionId = ((await invoked.json()) as { data: { execution: { id: string } } }).data.execution.id;

  // Every line parses (JSON.parse would throw), and each has the same frame.
  const logged = await until(lines, (all) => all.some((line) => line.workflowId === executionId));
  for (const line of logged)
    expect(line).toMatchObject({ time: expect.any(String), level: expect.any(String), msg: expect.any(String) });
  expect(logged).toContainEqual(
    expect.objectContaining({ component: 'api', msg: 'request', requestId: 'req-logs-1', status: 200 }),
  );
  const runLines = logged.filter((line) => line.workflowId === executionId);
  expect(runLines.length).toBeGreaterThan(0);
  expect(runLines.every((line) => line.source === 'temporal')).toBe(true);
  expect(runLines.some((line) => typeof line.runId === 'string')).toBe(true);
});

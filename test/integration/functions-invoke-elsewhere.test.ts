import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { invokeAndWait } from '../../src/functions/executions.service.ts';
import { cliActor } from '../../src/audit/actor.ts';
import { FunctionDef } from '../../src/functions/function.entity.ts';
import { LocalRuns } from '../../src/functions/local-runs.ts';
import { startTestApi, type TestApi } from '../support/api.ts';
import { testApi, type ApiCall } from '../support/http.ts';
import { issueKey, testMasters } from '../support/keys.ts';
import { until } from '../support/polling.ts';
import { startWorkerProcess, type WorkerProcess } from '../support/worker-process.ts';

// An API with no worker of its own: every run is taken by `neoflow worker`, another process.
let api: TestApi;
let worker: WorkerProcess | undefined;
let call: ApiCall;
let scratch: string;
let taskQueue: string;
beforeAll(async () => {
  taskQueue = `elsewhere-${randomBytes(4).toString('hex')}`;
  scratch = await mkdtemp(join(tmpdir(), 'neoflow-elsewhere-'));
  api = await startTestApi([], { NEOFLOW_TASK_QUEUE: taskQueue });
  call = testApi(api.url, (await issueKey(api.database.orm)).key);
  worker = await startWorkerProcess(api.database.url, taskQueue, join(scratch, 'data'), join(scratch, 'worker.log'));
});
afterAll(async () => {
  await worker?.stop();
  await api?.close();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

async function deploy(name: string, code: string): Promise<string> {
  const created = await call('POST', '/functions', { name, runtime: 'node18', code });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body.data.id as string;
}

describe('a synchronous invoke run by a worker of another process', () => {
  it('answers the result once the workflow reports the run ended', async () => {
    const id = await deploy(
      'elsewhere',
      'module.exports = async (context) => { const end = Date.now() + 200; while (Date.now() < end) {} return context.params.x + 1; };',
    );
    const invoked = await call('POST', `/functions/${id}/invoke`, { params: { x: 41 } });
    expect(invoked.status, JSON.stringify(invoked.body)).toBe(200);
    expect(invoked.body.data).toMatchObject({ execution: { status: 'completed' }, result: 42 });
  });

  it('runs an eagerly started execution whose start the server declined, though its row commits after the worker reads', async () => {
    const id = await deploy('declined', 'module.exports = async (context) => context.params.x + 1;');
    const em = api.database.orm.em.fork();
    const fn = await em.findOneOrFail(FunctionDef, { id }, { populate: ['account'] });
    // The row's insert waits behind this lock while the workflow, not handed back (this client's
    // connection has no worker), is taken by the worker elsewhere.
    const locker = new pg.Client({ connectionString: api.database.url });
    await locker.connect();
    try {
      await locker.query('begin');
      await locker.query('lock table executions in exclusive mode');
      const invoker = {
        client: api.services.temporal.client,
        taskQueue: taskQueue,
        localRuns: new LocalRuns(),
        log: api.services.log,
      };
      const invoked = invokeAndWait(em, invoker, cliActor(fn.account.id), testMasters, fn, { x: 1 }, 30_000);
      const workflows = api.services.temporal.client.workflow;
      const runsOfFunction = `NeoflowFunctionId = "${id}"`;
      // The worker elsewhere has read the (missing) row: its workflow task has started.
      await until(
        async () => {
          for await (const workflow of workflows.list({ query: runsOfFunction })) {
            const history = await workflows.getHandle(workflow.workflowId).fetchHistory();
            if (history.events?.some((event) => event.workflowTaskStartedEventAttributes)) return true;
          }
          return false;
        },
        Boolean,
        20_000,
        50,
      );
      await locker.query('commit');
      const { execution, result } = await invoked;
      expect(execution.status).toBe('completed');
      expect(result).toBe(2);
    } finally {
      await locker.end();
    }
  });
});

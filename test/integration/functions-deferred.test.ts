import proto from '@temporalio/proto';
import { beforeAll, describe, expect, it } from 'vitest';
import { runsInProgress } from '../../src/metrics/metrics.ts';
import { testApi, type ApiCall } from '../support/http.ts';
import { issueKey } from '../support/keys.ts';
import { until } from '../support/polling.ts';
import { apiWithWorkerForThisFile, rawHistory } from '../support/worker.ts';

// One worker process runs every run (the API hosts none), one run of an account at a time.
const running = apiWithWorkerForThisFile({ hostWorker: false, env: { NEOFLOW_ACCOUNT_CONCURRENCY: '1' } });
let call: ApiCall;
beforeAll(async () => {
  call = testApi(running.api.url, (await issueKey(running.api.database.orm)).key);
});

const { EventType } = proto.temporal.api.enums.v1;

interface Execution {
  status: string;
  error?: unknown;
  result: { began: number; ended: number };
}

/** A function that holds its run for `ms` (Atomics.wait: no core used) and answers when it began. */
async function deploy(name: string, timeout: number, ms: number): Promise<string> {
  const code =
    'module.exports = async () => { const began = Date.now(); ' +
    `Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ${ms}); return { began, ended: Date.now() }; };`;
  const created = await call('POST', '/functions', { name, runtime: 'node18', code, timeout });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body.data.id as string;
}

const invoke = async (functionId: string) => {
  const invoked = await call('POST', `/functions/${functionId}/invoke`, { async: true });
  expect(invoked.status, JSON.stringify(invoked.body)).toBe(202);
  return invoked.body.data.execution.id as string;
};

describe('a run that waits for its share', () => {
  // At scale: a function with a 120 s timeout waited 300 s for its share inside the local activity
  // that runs its code, whose limit is 330 s, and was cut off 30 s into its run. Scaled down here:
  // the attempt that runs a claimed turn is limited to the function's timeout and a 30 s margin
  // (35 s for a 5 s timeout), and the run waits 40 s behind another of its account's.
  it('waits on a timer, not inside the attempt that runs it, and then runs to completion once', async () => {
    const holder = await deploy('holder', 60, 40_000);
    const waiter = await deploy('waiter', 5, 3_000);
    const holding = await invoke(holder);
    // The holder's code runs, holding the account's one slot (the worker runs in this process):
    // its workflow task having started is not enough, the slot is taken after that.
    await until(
      async () => (await runsInProgress.get()).values[0]?.value ?? 0,
      (inProgress) => inProgress === 1,
    );
    const waiting = await invoke(waiter);
    const read = (id: string, functionId: string) =>
      call('GET', `/functions/${functionId}/executions/${id}`).then((answer) => answer.body.data as Execution);
    const ended = await until(
      () => read(waiting, waiter),
      (execution) => execution.status !== 'running',
      120_000,
      1_000,
    );
    const held = await read(holding, holder);
    expect(held.status).toBe('completed');
    expect(ended.status, JSON.stringify(ended.error)).toBe('completed');
    // It began after the holder ended, and ran its 3 s once.
    expect(ended.result.began).toBeGreaterThanOrEqual(held.result.ended);
    expect(ended.result.ended - ended.result.began).toBeGreaterThanOrEqual(3_000);
    const events = await rawHistory(running.api, waiting);
    expect(events.filter((event) => event.eventType === EventType.EVENT_TYPE_TIMER_STARTED).length).toBeGreaterThan(0);
    expect(events.some((event) => event.eventType === EventType.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED)).toBe(true);
  }, 180_000);
});

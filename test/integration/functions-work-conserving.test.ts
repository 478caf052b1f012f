import { beforeAll, describe, expect, it } from 'vitest';
import { testApi, type ApiCall } from '../support/http.ts';
import { issueKey } from '../support/keys.ts';
import { until } from '../support/polling.ts';
import { apiWithWorkerForThisFile } from '../support/worker.ts';

// One worker process runs every run (the API hosts none), 8 at once, with the default share: no
// bound per account (NEOFLOW_ACCOUNT_CONCURRENCY unset).
const slots = 8;
const running = apiWithWorkerForThisFile({ hostWorker: false, env: { NEOFLOW_WORKER_MAX_RUNS: String(slots) } });
let first: ApiCall;
let second: ApiCall;
beforeAll(async () => {
  first = testApi(running.api.url, (await issueKey(running.api.database.orm)).key);
  second = testApi(running.api.url, (await issueKey(running.api.database.orm)).key);
});

interface Span {
  began: number;
  ended: number;
}

/** A function that holds its run for `ms` (Atomics.wait: no core used) and answers when it ran. */
async function deploy(call: ApiCall, ms: number): Promise<string> {
  const code =
    'module.exports = async () => { const began = Date.now(); ' +
    `Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ${ms}); return { began, ended: Date.now() }; };`;
  const created = await call('POST', '/functions', { name: `hold-${ms}-${Date.now()}`, runtime: 'node18', code });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body.data.id as string;
}

async function burst(call: ApiCall, functionId: string, count: number) {
  const answers = await Promise.all(
    Array.from({ length: count }, () => call('POST', `/functions/${functionId}/invoke`, { async: true })),
  );
  expect(answers.map((answer) => answer.status)).toEqual(Array(count).fill(202));
}

/** When each of the function's `count` runs ran, once all ended (completed). */
async function spans(call: ApiCall, functionId: string, count: number): Promise<Span[]> {
  const ended = await until(
    async () => {
      const listed = await call('GET', `/functions/${functionId}/executions?limit=100`);
      return (listed.body.data as { id: string; status: string }[]).filter((run) => run.status !== 'running');
    },
    (list) => list.length === count,
    120_000,
    250,
  );
  expect(ended.map((run) => run.status)).toEqual(Array(count).fill('completed'));
  return Promise.all(
    ended.map(async ({ id }) => {
      const read = await call('GET', `/functions/${functionId}/executions/${id}`);
      return read.body.data.result as Span;
    }),
  );
}

/** The most spans that overlap at any moment. */
function mostAtOnce(list: Span[]): number {
  const edges = list.flatMap(({ began, ended }) => [
    { at: began, change: 1 },
    { at: ended, change: -1 },
  ]);
  // At equal times an end comes first: a run that starts as another ends is not beside it.
  edges.sort((a, b) => a.at - b.at || a.change - b.change);
  let at = 0;
  let most = 0;
  for (const { change } of edges) most = Math.max(most, (at += change));
  return most;
}

describe("the process's run slots, shared by the busy accounts", () => {
  it('are all an account alone may use: its burst runs on every slot at once', async () => {
    const functionId = await deploy(first, 1_500);
    await burst(first, functionId, 2 * slots);
    // With a fixed share of 4 per account, 4 at most.
    expect(mostAtOnce(await spans(first, functionId, 2 * slots))).toBe(slots);
  }, 180_000);

  it("are shared equally by two bursting accounts, and the newcomer's first run starts within one run's time", async () => {
    const runMs = 300;
    const count = 30;
    const [older, newer] = [await deploy(first, runMs), await deploy(second, runMs)];
    await burst(first, older, count);
    // The first account holds every slot (its runs started) before the second comes.
    await until(
      async () => (await first('GET', `/functions/${older}/executions?limit=100`)).body.data as { status: string }[],
      (list) => list.some((run) => run.status !== 'running'),
      60_000,
      20,
    );
    const cameAt = Date.now();
    await burst(second, newer, count);
    const [a, b] = [await spans(first, older, count), await spans(second, newer, count)];
    const firstOfNewcomer = Math.min(...b.map((span) => span.began));
    // One run's time, with the margin of a loaded machine (the invoke's answer, a workflow task).
    expect(firstOfNewcomer - cameAt).toBeLessThan(runMs + 2_000);
    // While both were busy: from the end of the runs the first account started alone (one run's
    // time after the newcomer's first) to the end of whichever account ended first.
    const from = firstOfNewcomer + runMs;
    const to = Math.min(Math.max(...a.map((span) => span.ended)), Math.max(...b.map((span) => span.ended)));
    const endedWhileBoth = (list: Span[]) => list.filter((span) => span.ended > from && span.ended <= to).length;
    const [ofA, ofB] = [endedWhileBoth(a), endedWhileBoth(b)];
    console.log(`[share] runs ended while both accounts were busy: ${ofA} and ${ofB}`);
    expect(ofA + ofB).toBeGreaterThanOrEqual(16);
    expect(ofA / (ofA + ofB)).toBeGreaterThanOrEqual(0.4);
    expect(ofA / (ofA + ofB)).toBeLessThanOrEqual(0.6);
  }, 180_000);
});

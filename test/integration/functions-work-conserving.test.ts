import { beforeAll, describe, expect, it } from 'vitest';
import { testApi, type ApiCall } from '../support/http.ts';
import { issueKey } from '../support/keys.ts';
import { mostAtOnce } from '../support/spans.ts';
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
  /** When the execution was recorded (the invoke). */
  recorded: number;
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
  const failed = ended.filter((run) => run.status !== 'completed');
  expect(failed, JSON.stringify(failed)).toEqual([]);
  return Promise.all(
    ended.map(async ({ id }) => {
      const read = await call('GET', `/functions/${functionId}/executions/${id}`);
      return { ...(read.body.data.result as Span), recorded: Date.parse(read.body.data.startedAt as string) };
    }),
  );
}

describe("the process's run slots, shared by the busy accounts", () => {
  it('are all but one an account alone may use: its burst runs on every other slot at once', async () => {
    const functionId = await deploy(first, 3_000);
    await burst(first, functionId, 2 * slots);
    // With a fixed share of 4 per account, 4 at most; the last slot is kept for an account running none.
    const ran = (await spans(first, functionId, 2 * slots)).map(({ began, ended }) => ({ start: began, end: ended }));
    expect(mostAtOnce(ran)).toBe(slots - 1);
  }, 180_000);

  it('are shared equally by two accounts bursting at once: each begins 40-60 % of the runs begun while both are busy', async () => {
    const count = 40;
    const [mine, other] = [await deploy(first, 500), await deploy(second, 500)];
    await Promise.all([burst(first, mine, count), burst(second, other, count)]);
    const [a, b] = [await spans(first, mine, count), await spans(second, other, count)];
    // While both had runs to begin: from the later first run to the earlier last one, the runs
    // each began (a run's workflow task reaches the worker seconds late here: what both had
    // reached the worker's slots is what they share).
    const from = Math.max(...[a, b].map((list) => Math.min(...list.map((span) => span.began))));
    const to = Math.min(...[a, b].map((list) => Math.max(...list.map((span) => span.began))));
    const [ofA, ofB] = [a, b].map((list) => list.filter((span) => span.began >= from && span.began <= to).length) as [
      number,
      number,
    ];
    console.log(`[share] runs begun while both accounts were busy: ${ofA} and ${ofB}`);
    expect(ofA / (ofA + ofB)).toBeGreaterThanOrEqual(0.4);
    expect(ofA / (ofA + ofB)).toBeLessThanOrEqual(0.6);
  }, 180_000);

  it("let a newcomer's first run start within one run's time, not behind the queue of an account holding every slot", async () => {
    const runMs = 1_000;
    const count = 32;
    const [older, newer] = [await deploy(first, runMs), await deploy(second, runMs)];
    await burst(first, older, count);
    // The first account holds every slot (its runs started) before the second comes.
    await until(
      async () => (await first('GET', `/functions/${older}/executions?limit=100`)).body.data as { status: string }[],
      (list) => list.some((run) => run.status !== 'running'),
      60_000,
      // At the key's refill rate (100/10s): faster polls, on a machine slow to start the runs,
      // drained its bucket and read a 429's body as the list.
      100,
    );
    await burst(second, newer, 1);
    const [a, [b]] = [await spans(first, older, count), await spans(second, newer, 1)];
    // Not behind the first account's queue (24 runs when it came): most of them began after it.
    const after = a.filter((span) => span.began > b!.began).length;
    const waited = b!.began - b!.recorded;
    console.log(`[share] newcomer's run began ${waited} ms after its invoke, before ${after} of the other's`);
    expect(after).toBeGreaterThanOrEqual(count / 4);
    // One run's time, and a margin for the invoke's workflow task to reach the worker through the
    // server, seconds on a loaded machine while 32 runs' tasks go the same way.
    expect(waited).toBeLessThan(runMs + 4_000);
  }, 180_000);
});

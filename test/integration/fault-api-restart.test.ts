import { describe, expect, it } from 'vitest';
import { executionRows, type ExecutionRow } from '../support/execution-rows.ts';
import { busyFunction, killStackForThisFile } from '../support/kill-stack.ts';
import { until } from '../support/polling.ts';

const invocations = 40;
const concurrency = 8;
/** Accepted before the kill is aimed: the burst is well under way. */
const acceptedBeforeKill = 12;
/**
 * Bursts at most, each killed midway: an answer may still leave between seeing an unanswered row
 * and the kill, so a burst can miss the window, and a next burst on a new API tries again.
 */
const bursts = 5;

const stack = killStackForThisFile('api-restart', 'api');

/**
 * A burst of asynchronous invokes on the API that is up, killed by `kill -9` once an execution is
 * recorded and not yet answered (`answeredBefore`: the executions earlier bursts had answered).
 * Answers the ids answered 202.
 */
async function burstKilledMidway(functionId: string, answeredBefore: number): Promise<string[]> {
  const acceptedHere: string[] = [];
  let next = 0;
  const reachedKillPoint = Promise.withResolvers<void>();
  const lane = async () => {
    while (next < invocations) {
      const n = next++;
      const body = { async: true, params: { n } };
      const response = await stack.call('POST', `/functions/${functionId}/invoke`, body).catch(() => null);
      if (response?.status !== 202) continue;
      acceptedHere.push(response.body.data.execution.id as string);
      if (acceptedHere.length === acceptedBeforeKill) reachedKillPoint.resolve();
    }
  };
  let ended = false;
  const burst = Promise.all(Array.from({ length: concurrency }, lane)).finally(() => (ended = true));
  await reachedKillPoint.promise;
  // Aimed while a request is past its row and not yet answered (recorded > accepted).
  while (!ended && (await executionRows(stack.database, functionId)).length <= answeredBefore + acceptedHere.length);
  await stack.kill(stack.processes.at(-1)!);
  await burst;
  return acceptedHere;
}

describe('fault: kill -9 of the API during asynchronous invokes, then a new API', () => {
  it(`runs every recorded execution once to its own result, those accepted and those cut off alike`, async () => {
    const functionId = await stack.deploy({ name: 'restart-survivor', ...busyFunction });

    const accepted: string[] = [];
    let atKill: ExecutionRow[];
    let burstsRun = 0;
    do {
      if (burstsRun > 0) await stack.start();
      accepted.push(...(await burstKilledMidway(functionId, accepted.length)));
      burstsRun += 1;
      atKill = await executionRows(stack.database, functionId);
    } while (burstsRun < bursts && atKill.length === accepted.length);
    expect(atKill.length, `executions recorded but not answered at a kill, in ${bursts} bursts`).toBeGreaterThan(
      accepted.length,
    );

    await stack.start();
    const rows = await until(
      () => executionRows(stack.database, functionId),
      (read) => read.every((row) => row.status !== 'running'),
      120_000,
    );
    console.log(
      `[fault-api-restart] ${burstsRun} bursts, ${accepted.length} accepted, ${atKill.length} recorded at the last kill, ` +
        `${rows.filter((row) => row.status === 'completed').length} completed in the end`,
    );
    expect(rows.length).toBe(atKill.length);
    expect(rows.map((row) => row.id)).toEqual(expect.arrayContaining(accepted));
    for (const row of rows) {
      expect(row, `execution ${row.id}`).toMatchObject({ status: 'completed', results: 1 });
    }
    for (const row of rows) {
      const details = await stack.call('GET', `/functions/${functionId}/executions/${row.id}`);
      expect(details.body.data, `execution ${row.id}`).toMatchObject({ status: 'completed', result: row.params.n });
    }
  }, 240_000);
});

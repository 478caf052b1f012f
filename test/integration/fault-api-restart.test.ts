import { describe, expect, it } from 'vitest';
import { executionRows } from '../support/execution-rows.ts';
import { busyFunction, killStackForThisFile } from '../support/kill-stack.ts';
import { until } from '../support/polling.ts';

const invocations = 40;
const concurrency = 8;
/** Accepted before the kill is aimed: the burst is well under way. */
const acceptedBeforeKill = 12;

const stack = killStackForThisFile('api-restart', 'api');

describe('fault: kill -9 of the API during asynchronous invokes, then a new API', () => {
  it(`runs every recorded execution once to its own result, those accepted and those cut off alike`, async () => {
    const first = stack.processes[0]!;
    const functionId = await stack.deploy({ name: 'restart-survivor', ...busyFunction });

    const accepted: string[] = [];
    let next = 0;
    const reachedKillPoint = Promise.withResolvers<void>();
    const lane = async () => {
      while (next < invocations) {
        const n = next++;
        const body = { async: true, params: { n } };
        const response = await stack.call('POST', `/functions/${functionId}/invoke`, body).catch(() => null);
        if (response?.status !== 202) continue;
        accepted.push(response.body.data.execution.id as string);
        if (accepted.length === acceptedBeforeKill) reachedKillPoint.resolve();
      }
    };
    let ended = false;
    const burst = Promise.all(Array.from({ length: concurrency }, lane)).finally(() => (ended = true));
    await reachedKillPoint.promise;
    // The kill lands while a request is past its row and not yet answered (recorded > accepted).
    while (!ended && (await executionRows(stack.database, functionId)).length <= accepted.length);
    await stack.kill(first);
    await burst;

    const atKill = await executionRows(stack.database, functionId);
    expect(atKill.length, 'executions recorded but not answered at the kill').toBeGreaterThan(accepted.length);

    await stack.start();
    const rows = await until(
      () => executionRows(stack.database, functionId),
      (read) => read.every((row) => row.status !== 'running'),
      120_000,
    );
    console.log(
      `[fault-api-restart] ${accepted.length} accepted, ${atKill.length} recorded at the kill, ` +
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

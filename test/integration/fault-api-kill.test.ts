import { describe, expect, it } from 'vitest';
import { executionRows } from '../support/execution-rows.ts';
import { busyFunction, killStackForThisFile } from '../support/kill-stack.ts';
import { until } from '../support/polling.ts';

const invocations = 48;
const concurrency = 16;
/** Answers seen before the kill: the burst is well under way, and most runs are not yet done. */
const answersBeforeKill = 8;

const stack = killStackForThisFile('api-kill', 'api');

describe('fault: kill -9 of the API during a burst of synchronous invokes', () => {
  it('ends every execution completed or failed with a clear error, each with exactly one outcome', async () => {
    // Runs started eagerly execute in the API's own worker.
    const api = stack.processes[0]!;
    const functionId = await stack.deploy({ name: 'burst', ...busyFunction });

    let answered = 0;
    let next = 0;
    const reachedKillPoint = Promise.withResolvers<void>();
    const lane = async () => {
      while (next < invocations) {
        const n = next++;
        const response = await stack
          .call('POST', `/functions/${functionId}/invoke`, { params: { n } })
          .catch(() => null);
        if (response?.status === 200 && ++answered === answersBeforeKill) reachedKillPoint.resolve();
      }
    };
    const burst = Promise.all(Array.from({ length: concurrency }, lane));
    await reachedKillPoint.promise;
    await stack.kill(api);
    await burst;

    const rows = await until(
      () => executionRows(stack.database, functionId),
      (read) => read.every((row) => row.status !== 'running'),
      120_000,
    );
    const running = rows.filter((row) => row.status === 'running').length;
    console.log(
      `[fault-api-kill] ${answered} answered before and around the kill; ${rows.length} executions recorded, ` +
        `${running} still running`,
    );
    expect(rows.length).toBeGreaterThan(answered);
    expect(running, 'executions still running').toBe(0);
    for (const row of rows) {
      if (row.status === 'completed') expect(row.results, `results of ${row.id}`).toBe(1);
      else {
        expect(row.status).toBe('failed');
        expect(row.results).toBe(0);
        expect(row.error?.message, `error of ${row.id}`).toMatch(/\w{4,}/);
      }
    }
  }, 240_000);
});

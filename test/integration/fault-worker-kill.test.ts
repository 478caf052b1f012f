import { describe, expect, it } from 'vitest';
import { executionRows } from '../support/execution-rows.ts';
import { killStackForThisFile } from '../support/kill-stack.ts';

const functionTimeoutS = 10;

const stack = killStackForThisFile('worker-kill', 'worker');

describe('fault: kill -9 of the worker during a running execution', () => {
  it('completes the execution once, with its result, when a new worker takes it over', async () => {
    const functionId = await stack.deploy({
      name: 'slow-3s',
      timeout: functionTimeoutS,
      code: "module.exports = async () => { const end = Date.now() + 3000; while (Date.now() < end) { await null; } return 'done'; };",
    });

    const invokedAt = performance.now();
    // Surely running in the worker (killing before the code runs proves less, but the outcome must
    // be the same).
    const executionId = await stack.invokedInWorker(functionId);

    const killedAt = performance.now();
    await stack.kill(stack.processes[0]!);
    await stack.start();

    const limitMs = (functionTimeoutS + 60) * 1000;
    const details = await stack.ended(functionId, executionId, limitMs - (performance.now() - invokedAt));
    const endedAt = performance.now();
    const seconds = (from: number) => ((endedAt - from) / 1000).toFixed(1);
    console.log(
      `[fault-worker-kill] execution ${executionId} ended "${String(details.data?.status)}" ` +
        `${seconds(invokedAt)} s after the invocation, ${seconds(killedAt)} s after kill -9`,
    );
    if (!details.data || details.data.status === 'running') {
      throw new Error(
        `execution ${executionId} still ${String(details.data?.status)} ${seconds(invokedAt)} s after the invocation ` +
          `(limit ${limitMs / 1000} s)\n--- worker logs ---\n${await stack.logs()}`,
      );
    }
    // The new worker runs the workflow task again, and with it the code: the run completes, once.
    expect(details.data).toMatchObject({ id: executionId, status: 'completed', result: 'done' });
    const rows = await executionRows(stack.database, functionId);
    expect(rows).toEqual([expect.objectContaining({ id: executionId, status: 'completed', results: 1 })]);
  }, 180_000);
});

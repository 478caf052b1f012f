import { describe, expect, it } from 'vitest';
import { killStackForThisFile } from '../support/kill-stack.ts';

const stack = killStackForThisFile('storage', 'worker');
const { call } = stack;

describe('fault: kill -9 of the worker during a run that wrote to its storage', () => {
  it('applies the write exactly once, with the run the new worker completes', async () => {
    // Sets n, then stays in the code for 3 s: the kill lands after the set, before the commit.
    const functionId = await stack.deploy({
      name: 'storage-kill',
      timeout: 10,
      code: `module.exports = async ({ storage }) => {
        const { value = 0 } = await storage.getEntry('n');
        await storage.set('n', value + 1);
        const end = Date.now() + 3000; while (Date.now() < end) { await null; }
        return value + 1;
      };`,
    });
    // Inside the code's 3 s, past its set.
    const executionId = await stack.invokedInWorker(functionId);
    expect((await call('GET', `/functions/${functionId}/storage/n`)).status).toBe(404);

    await stack.kill(stack.processes[0]!);
    await stack.start();

    const details = await stack.ended(functionId, executionId, 90_000);
    if (details.data?.status !== 'completed') {
      throw new Error(`execution ${executionId} ended ${JSON.stringify(details.data)}\n${await stack.logs()}`);
    }
    expect(details.data).toMatchObject({ result: 1, storage: { read: ['n'], written: ['n'] } });
    // One write, applied once: version 1.
    const stored = await call('GET', `/functions/${functionId}/storage/n`);
    expect(stored.body.data).toMatchObject({ key: 'n', value: 1, version: 1 });
  }, 180_000);
});

import { describe, expect, it } from 'vitest';
import type { Execution } from '../../src/functions/execution.entity.ts';
import { LocalRuns } from '../../src/functions/local-runs.ts';

const executionNamed = (id: string) => ({ id, status: 'running' }) as Execution;
const completed = { status: 'completed' as const, durationMs: 2, errorName: null };

describe('LocalRuns', () => {
  it('hands the row as built to the first attempt only, once it is stored, and nothing to a run it did not start', async () => {
    const runs = new LocalRuns();
    const execution = executionNamed('exec_a');
    let stored!: () => void;
    runs.expect(execution, new Promise<void>((resolve) => (stored = resolve)));
    let taken: Execution | undefined;
    const taking = runs.take('exec_a').then((row) => (taken = row));
    await new Promise((resolve) => setImmediate(resolve));
    expect(taken).toBeUndefined();
    stored();
    await taking;
    expect(taken).toBe(execution);
    // A retried attempt reads the row as stored.
    expect(await runs.take('exec_a')).toBeUndefined();
    expect(await runs.take('exec_other')).toBeUndefined();
  });

  it("hands a run's outcome and result to the invoke of the instance that started it, and to no other", async () => {
    const mine = new LocalRuns();
    const another = new LocalRuns();
    const execution = executionNamed('exec_b');
    const waiting = mine.expect(execution, Promise.resolve());
    const elsewhere = another.expect(executionNamed('exec_b'), Promise.resolve());
    let elsewhereEnded = false;
    void elsewhere.ended.then(() => (elsewhereEnded = true));

    mine.ended({ outcome: completed, execution, result: { x: 2 } });
    expect(await waiting.ended).toEqual({ outcome: completed, execution, result: { x: 2 } });
    await new Promise((resolve) => setImmediate(resolve));
    expect(elsewhereEnded).toBe(false);
  });

  it('tells a waiting invoke its run was deferred, and forgets a run nobody waits for', async () => {
    const runs = new LocalRuns();
    const execution = executionNamed('exec_c');
    const waiting = runs.expect(execution, Promise.resolve());
    runs.deferred('exec_c');
    await waiting.deferred;
    waiting.forget();
    expect(await runs.take('exec_c')).toBeUndefined();
    // An end after the invoke stopped waiting goes nowhere, and throws nothing.
    runs.ended({ outcome: completed, execution, result: null });
  });
});

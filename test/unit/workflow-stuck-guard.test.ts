import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { guardedCreator, type WorkflowCreateOptions } from '../../worker/unwatched-worker.ts';

type Creator = Parameters<typeof guardedCreator>[0];

const info = { workflowType: 'pricePoller', workflowId: 'auto_1', runId: 'run-1' } as WorkflowCreateOptions['info'];
const options = { info } as WorkflowCreateOptions;
const never = () => new Promise<never>(() => undefined);

/** A creator whose workflows answer each activation with what `activate` returns. */
function fakeCreator(activate: () => Promise<object>, create = () => Promise.resolve()): Creator {
  return {
    createWorkflow: async () => {
      await create();
      return {
        activate,
        getAndResetSinkCalls: () => Promise.resolve([]),
        dispose: () => Promise.resolve(),
      };
    },
    destroy: () => Promise.resolve(),
  };
}

describe('the guard of a worker without the per-call watchdog', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('reports once the workflow that holds the thread past the limit, naming it', async () => {
    const onStuck = vi.fn();
    const workflow = await guardedCreator(fakeCreator(never), { afterMs: 5_000, onStuck }).createWorkflow(options);
    void workflow.activate({});
    await vi.advanceTimersByTimeAsync(4_999);
    expect(onStuck).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1);
    expect(onStuck).toHaveBeenCalledExactlyOnceWith(info);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(onStuck).toHaveBeenCalledOnce();
  });

  it('reports a workflow whose creation never returns', async () => {
    const onStuck = vi.fn();
    const creator = guardedCreator(
      fakeCreator(() => Promise.resolve({}), never),
      { afterMs: 5_000, onStuck },
    );
    void creator.createWorkflow(options);
    await vi.advanceTimersByTimeAsync(5_000);
    expect(onStuck).toHaveBeenCalledExactlyOnceWith(info);
  });

  it('stays silent for activations that return in time, and passes their completions and failures on', async () => {
    const onStuck = vi.fn();
    let answer: () => Promise<object> = () => Promise.resolve({ successful: {} });
    const creator = guardedCreator(
      fakeCreator(() => answer()),
      { afterMs: 5_000, onStuck },
    );
    const workflow = await creator.createWorkflow(options);
    await expect(workflow.activate({})).resolves.toEqual({ successful: {} });
    answer = () => Promise.reject(new Error('nondeterminism'));
    await expect(workflow.activate({})).rejects.toThrow('nondeterminism');
    await vi.advanceTimersByTimeAsync(60_000);
    expect(onStuck).not.toHaveBeenCalled();
  });
});

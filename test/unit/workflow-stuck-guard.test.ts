import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { guardedCreator, type WorkflowCreateOptions } from '../../worker/unwatched-worker.ts';

type Creator = Parameters<typeof guardedCreator>[0];
type Info = WorkflowCreateOptions['info'];

const infoOf = (workflowId: string) =>
  ({ workflowType: 'pricePoller', workflowId, runId: `run-${workflowId}` }) as Info;
const optionsOf = (workflowId: string) => ({ info: infoOf(workflowId) }) as WorkflowCreateOptions;
const never = () => new Promise<never>(() => undefined);
const after = (ms: number) => new Promise<object>((resolve) => setTimeout(() => resolve({}), ms));

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
  beforeEach(() => vi.useFakeTimers({ toFake: ['setTimeout', 'setInterval', 'clearInterval', 'performance'] }));
  afterEach(() => vi.useRealTimers());

  it('names, once, the workflow on a thread that finishes nothing for the limit', async () => {
    const onStuck = vi.fn();
    const creator = guardedCreator(fakeCreator(never), { afterMs: 5_000, onStuck });
    const workflow = await creator.createWorkflow(optionsOf('auto_1'));
    void workflow.activate({});
    await vi.advanceTimersByTimeAsync(4_000);
    expect(onStuck).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(2_000);
    expect(onStuck).toHaveBeenCalledExactlyOnceWith(infoOf('auto_1'));
    await vi.advanceTimersByTimeAsync(60_000);
    expect(onStuck).toHaveBeenCalledOnce();
    await creator.destroy();
  });

  it('names a workflow whose creation never returns', async () => {
    const onStuck = vi.fn();
    const creator = guardedCreator(
      fakeCreator(() => Promise.resolve({}), never),
      { afterMs: 5_000, onStuck },
    );
    void creator.createWorkflow(optionsOf('auto_2'));
    await vi.advanceTimersByTimeAsync(6_000);
    expect(onStuck).toHaveBeenCalledExactlyOnceWith(infoOf('auto_2'));
    await creator.destroy();
  });

  it('stays silent while a long queue drains, each activation waiting far past the limit behind the others', async () => {
    const onStuck = vi.fn();
    // One thread: each activation takes 100 ms once those before it are done.
    let queue: Promise<unknown> = Promise.resolve();
    const inTurn = () => {
      const turn = queue.then(() => after(100));
      queue = turn;
      return turn;
    };
    const creator = guardedCreator(fakeCreator(inTurn), { afterMs: 5_000, onStuck });
    const workflows = await Promise.all(
      Array.from({ length: 200 }, (_, i) => creator.createWorkflow(optionsOf(`auto_${i}`))),
    );
    const all = Promise.all(workflows.map((workflow) => workflow.activate({})));
    await vi.advanceTimersByTimeAsync(20_000);
    await all;
    await vi.advanceTimersByTimeAsync(60_000);
    expect(onStuck).not.toHaveBeenCalled();
    await creator.destroy();
  });

  it('passes completions and failures on, and looks no more once destroyed', async () => {
    const onStuck = vi.fn();
    let answer: () => Promise<object> = () => Promise.resolve({ successful: {} });
    const creator = guardedCreator(
      fakeCreator(() => answer()),
      { afterMs: 5_000, onStuck },
    );
    const workflow = await creator.createWorkflow(optionsOf('auto_3'));
    await expect(workflow.activate({})).resolves.toEqual({ successful: {} });
    answer = () => Promise.reject(new Error('nondeterminism'));
    await expect(workflow.activate({})).rejects.toThrow('nondeterminism');
    await creator.destroy();
    answer = never;
    void workflow.activate({});
    await vi.advanceTimersByTimeAsync(60_000);
    expect(onStuck).not.toHaveBeenCalled();
  });
});

import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Automation } from '../../src/automations/model/automation.entity.ts';
import { applyTrigger, TriggerControl, type TriggerControlFields } from '../../src/automations/triggers.control.ts';

/**
 * A control over two networks whose Temporal client only counts what it is asked: wakes of
 * pollers, starts of the followers (by workflow id).
 */
function countingControl() {
  const wakes: string[] = [];
  const started: string[] = [];
  const client = {
    workflow: {
      signalWithStart: (_type: string, options: { workflowId: string }) => {
        wakes.push(options.workflowId);
        return Promise.resolve();
      },
      start: (_type: string, options: { taskQueue: string; workflowId: string }) => {
        started.push(options.workflowId);
        return Promise.resolve({ describe: () => Promise.resolve({ taskQueue: options.taskQueue }) });
      },
    },
    withDeadline: (_deadline: number, call: () => Promise<unknown>) => call(),
  };
  const networks = [
    { name: 'mainnet', getNetworkMagic: () => Promise.resolve(860833102) },
    { name: 'testnet', getNetworkMagic: () => Promise.resolve(894710606) },
  ];
  const fields = { client, networks, taskQueue: 'neoflow', log: { warn: vi.fn() } } as unknown as TriggerControlFields;
  const control = new TriggerControl(fields);
  return { control, wakes, started, followerStarts: () => started.length };
}

const automation = (fields: Partial<Automation>) =>
  ({ id: 'auto_1', status: 'active', priceSource: null, ...fields }) as unknown as Automation;
const price = (source: string) => automation({ triggerType: 'price', priceSource: source });
const watcher = automation({ triggerType: 'blockchain', network: 'mainnet' });

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe("a price source's poller woken by creates", () => {
  it('is woken at once, then once more a second later for every create that came meanwhile', async () => {
    const { control, wakes } = countingControl();
    await applyTrigger(control, price('a'), { created: true });
    expect(wakes).toEqual(['price_a']);
    for (let i = 0; i < 20; i++) await applyTrigger(control, price('a'), { created: true });
    await applyTrigger(control, price('b'), { created: true });
    expect(wakes).toEqual(['price_a', 'price_b']);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(wakes).toEqual(['price_a', 'price_b', 'price_a']);
    // Nothing asked since: no more wakes, and the next create is woken at once again.
    await vi.advanceTimersByTimeAsync(5_000);
    expect(wakes).toEqual(['price_a', 'price_b', 'price_a']);
    await applyTrigger(control, price('b'), { created: true });
    expect(wakes).toEqual(['price_a', 'price_b', 'price_a', 'price_b']);
  });
});

describe('the block follower ensured by creates of watchers', () => {
  it('is ensured once for the creates of the next 10 s, then again', async () => {
    const { control, followerStarts } = countingControl();
    await applyTrigger(control, watcher, { created: true });
    expect(followerStarts()).toBe(1);
    for (let i = 0; i < 20; i++) await applyTrigger(control, watcher, { created: true });
    await vi.advanceTimersByTimeAsync(9_000);
    await applyTrigger(control, watcher, { created: true });
    expect(followerStarts()).toBe(1);
    await vi.advanceTimersByTimeAsync(1_000);
    await applyTrigger(control, watcher, { created: true });
    expect(followerStarts()).toBe(2);
  });
});

describe('the block followers ensured by creates of watchers on several networks', () => {
  it("ensures the follower of the watcher's own network, keyed by that network's magic, each held on its own", async () => {
    const { control, started } = countingControl();
    await applyTrigger(control, automation({ triggerType: 'state', network: 'testnet' }), { created: true });
    expect(started).toEqual(['blocks_894710606_neoflow']);
    await applyTrigger(control, watcher, { created: true });
    await applyTrigger(control, automation({ triggerType: 'transaction', network: 'testnet' }), { created: true });
    expect(started).toEqual(['blocks_894710606_neoflow', 'blocks_860833102_neoflow']);
  });

  it('starts no follower for a network the configuration lacks', async () => {
    const { control, started } = countingControl();
    await applyTrigger(control, automation({ triggerType: 'blockchain', network: 'removed' }), { created: true });
    expect(started).toEqual([]);
  });
});

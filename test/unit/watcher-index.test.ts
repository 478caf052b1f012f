import type { EntityManager } from '@mikro-orm/postgresql';
import { describe, expect, it } from 'vitest';
import { WatcherIndex } from '../../src/automations/blocks/watcher-index.ts';

const gas = '0xd2a4cff31913016155e38e474a2c06d08be276cf';

/**
 * The watchers' tables as the index reads them: the change counter, then the rows of the network
 * asked for (new objects each read, as the driver gives them). A trigger is of `default` unless
 * `networks` says otherwise.
 */
function tables() {
  const state = { version: '1', triggers: new Map<string, unknown>(), networks: new Map<string, string>() };
  const em = {
    execute: async (sql: string, params: string[] = []) =>
      sql.includes('watcher_changes')
        ? [{ version: state.version }]
        : [...state.triggers]
            .filter(([id]) => (state.networks.get(id) ?? 'default') === params[0])
            .map(([id, trigger]) => ({
              id,
              account_id: 'acct_1',
              trigger: structuredClone(trigger),
              watch_from_block: 1,
            })),
  } as unknown as EntityManager;
  return { state, em };
}

describe('the watcher index keeps what it parsed of unchanged triggers', () => {
  it('keeps the trigger object of an automation whose trigger did not change, so its filters are not parsed again', async () => {
    const { state, em } = tables();
    state.triggers.set('auto_1', {
      type: 'blockchain',
      scriptHash: gas,
      filter: { to: { in: ['NXV7ZhHiyM1aHXwpVsRZC6BwNFP2jghXAq'] } },
    });
    state.triggers.set('auto_2', { type: 'blockchain', scriptHash: gas, filter: { amount: { gt: '1' } } });
    const index = new WatcherIndex('default');
    const [first, second] = await index.current(em);

    state.version = '2';
    state.triggers.set('auto_2', { type: 'blockchain', scriptHash: gas, filter: { amount: { gt: '2' } } });
    state.triggers.set('auto_3', { type: 'transaction', sender: 'NXV7ZhHiyM1aHXwpVsRZC6BwNFP2jghXAq' });
    const again = await index.current(em);

    expect(again.map((watcher) => watcher.id)).toEqual(['auto_1', 'auto_2', 'auto_3']);
    expect(again[0]!.trigger).toBe(first!.trigger);
    expect(again[1]!.trigger).not.toBe(second!.trigger);
    expect(again[1]!.trigger).toEqual(state.triggers.get('auto_2'));
  });
});

describe("each network's watcher index", () => {
  it("holds its own network's watchers only, each index reading again after a change of either", async () => {
    const { state, em } = tables();
    state.triggers.set('auto_main', { type: 'blockchain', scriptHash: gas });
    state.triggers.set('auto_test', { type: 'blockchain', scriptHash: gas });
    state.networks.set('auto_test', 'testnet');
    const main = new WatcherIndex('default');
    const test = new WatcherIndex('testnet');
    expect((await main.current(em)).map((watcher) => watcher.id)).toEqual(['auto_main']);
    expect((await test.current(em)).map((watcher) => watcher.id)).toEqual(['auto_test']);

    state.version = '2';
    state.triggers.set('auto_test_2', { type: 'transaction', sender: 'NXV7ZhHiyM1aHXwpVsRZC6BwNFP2jghXAq' });
    state.networks.set('auto_test_2', 'testnet');
    expect((await main.current(em)).map((watcher) => watcher.id)).toEqual(['auto_main']);
    expect((await test.current(em)).map((watcher) => watcher.id)).toEqual(['auto_test', 'auto_test_2']);
  });
});

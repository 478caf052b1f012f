import { describe, expect, it, vi } from 'vitest';
import type { EntityManager } from '@mikro-orm/postgresql';
import { NeoRpcError, type NeoRpc } from '../../src/chain/rpc.ts';
import type { Watcher } from '../../src/automations/blocks/block-matching.ts';
import { UndeployedContracts } from '../../src/automations/blocks/undeployed-contracts.ts';

const contract = `0x${'ab'.repeat(20)}`;
const watcher: Watcher = {
  id: 'auto_1',
  account: { id: 'acct_1' },
  trigger: { type: 'blockchain', scriptHash: contract },
  watchFromBlock: 0,
};

/** A node whose answers for the contract follow `answers`: deployed, unknown, or down. */
function node(answers: ('deployed' | 'unknown' | 'down')[]) {
  const getContractState = vi.fn(async () => {
    const answer = answers.shift();
    if (answer === 'unknown') throw new NeoRpcError('getcontractstate', 'Unknown contract', -102);
    if (answer === 'down') throw new NeoRpcError('getcontractstate', 'HTTP 502');
    return {};
  });
  return { neo: { getContractState } as unknown as NeoRpc, getContractState };
}

const fakeEm = () => {
  const nativeUpdate = vi.fn(async () => 1);
  // An automation moved to error is read back for its notification rules: it has none.
  const findOneOrFail = async () => ({ id: 'auto_1', name: 'watch', notify: [], account: { id: 'acct_1' } });
  const em = { nativeUpdate, findOneOrFail, transactional: (work: (tx: unknown) => unknown) => work(em) };
  return { em: em as unknown as EntityManager, nativeUpdate };
};

describe('contracts of blockchain triggers', () => {
  it('moves an automation to error after `limit` misses in a row, counting neither a node that is down nor a miss before a hit', async () => {
    const { neo } = node(['unknown', 'down', 'deployed', 'unknown', 'down', 'unknown', 'unknown']);
    const { em, nativeUpdate } = fakeEm();
    const contracts = new UndeployedContracts(neo, 3, 1000);
    for (let check = 0; check < 6; check++) await contracts.check(em, [watcher], check * 1000);
    expect(nativeUpdate).not.toHaveBeenCalled();
    await contracts.check(em, [watcher], 6000);
    expect(nativeUpdate).toHaveBeenCalledOnce();
    expect(nativeUpdate.mock.calls[0]).toMatchObject([
      expect.anything(),
      { id: 'auto_1', status: 'active', triggerType: 'blockchain' },
      { status: 'error', errorDetails: { reason: 'trigger_unavailable', since: new Date(3000).toISOString() } },
    ]);
  });

  it('asks the node once per contract and interval, whatever the number of automations', async () => {
    const { neo, getContractState } = node(['deployed', 'deployed']);
    const { em } = fakeEm();
    const contracts = new UndeployedContracts(neo, 3, 1000);
    const many = Array.from({ length: 50 }, (_, index) => ({ ...watcher, id: `auto_${index}` }));
    await contracts.check(em, many, 0);
    await contracts.check(em, many, 500);
    expect(getContractState).toHaveBeenCalledOnce();
    await contracts.check(em, many, 1000);
    expect(getContractState).toHaveBeenCalledTimes(2);
  });
});

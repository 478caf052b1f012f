import { describe, expect, it, vi } from 'vitest';
import { NeoRpcError, type ContractState, type NeoRpc } from '../../src/chain/rpc.ts';
import { assertTriggerNames } from '../../src/automations/blocks/trigger-names.ts';
import type { Trigger } from '../../src/automations/model/trigger.schemas.ts';

const contract = `0x${'cd'.repeat(20)}`;
const watching = (event: string): Trigger => ({ type: 'blockchain', scriptHash: contract, event });

/** A node whose contract declares `events` as they are when asked (none: not deployed). */
function node(events: () => string[] | null) {
  const getContractState = vi.fn(async (): Promise<ContractState> => {
    const names = events();
    if (names === null) throw new NeoRpcError('getcontractstate', 'Unknown contract', -102);
    const declared = names.map((name) => ({ name, parameters: [] }));
    return { hash: contract, updatecounter: 0, manifest: { name: 'c', abi: { events: declared } } };
  });
  return { neo: { url: 'http://node', getContractState } as unknown as NeoRpc, getContractState };
}

describe('the contract checks of blockchain triggers', () => {
  it('asks the node once for many creates of triggers on one contract it has lately answered', async () => {
    const { neo, getContractState } = node(() => ['Transfer']);
    for (let i = 0; i < 5; i++) await assertTriggerNames(neo, watching('Transfer'));
    expect(getContractState).toHaveBeenCalledTimes(1);
  });

  it('accepts an event the contract declares since it was last read: a refusal is checked against the node now', async () => {
    let events = ['Transfer'];
    const { neo, getContractState } = node(() => events);
    await assertTriggerNames(neo, watching('Transfer'));
    events = ['Transfer', 'Minted'];
    await assertTriggerNames(neo, watching('Minted'));
    expect(getContractState).toHaveBeenCalledTimes(2);
    await expect(assertTriggerNames(neo, watching('Burned'))).rejects.toMatchObject({ code: 'invalid_request' });
  });

  it('accepts a contract deployed since the node said it was not', async () => {
    let events: string[] | null = null;
    const { neo } = node(() => events);
    await expect(assertTriggerNames(neo, watching('Transfer'))).rejects.toMatchObject({ code: 'contract_not_found' });
    events = ['Transfer'];
    await assertTriggerNames(neo, watching('Transfer'));
  });
});

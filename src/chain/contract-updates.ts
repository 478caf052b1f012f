import { CONST } from '@cityofzion/neon-js';
import { rpcErrorCode, type NeoRpc } from './rpc.ts';
import { stateItems } from './stack-item.ts';

/** neo-go's code for a contract that is not deployed. */
const unknownContract = -102;

const contractManagement = `0x${CONST.NATIVE_CONTRACT_HASH.ManagementContract}`;

/**
 * Whether the contract at `scriptHash` may have been updated (or destroyed) after the block at
 * `index`: its manifest, the events' parameters that decode its notifications, may then differ
 * from today's for the blocks from `index` on. Today's `updatecounter` is compared with the one
 * ContractManagement held as of that block; one never updated needs no look into the past. A
 * contract deployed only after that block is taken as changed when it was updated since. A node
 * that keeps no state of that block answers its error, which is thrown.
 */
export async function changedSince(neo: NeoRpc, scriptHash: string, index: number): Promise<boolean> {
  const now = await updateCounterNow(neo, scriptHash);
  if (now === 0) return false;
  const param = { type: 'Hash160', value: scriptHash };
  const then = await neo.invokeFunctionAt(Math.max(0, index), contractManagement, 'getContract', [param]);
  const [state] = then.stack;
  const counter = state ? stateItems(state)[1] : undefined;
  // Null as of that block (not deployed yet), or destroyed since (`now` null): not the same contract.
  if (now === null || then.state !== 'HALT' || counter?.type !== 'Integer') return true;
  return Number(counter.value) !== now;
}

/** Today's `updatecounter`; null once the contract is not deployed (destroyed). */
async function updateCounterNow(neo: NeoRpc, scriptHash: string): Promise<number | null> {
  try {
    return (await neo.getContractState(scriptHash)).updatecounter;
  } catch (error) {
    if (rpcErrorCode(error) === unknownContract) return null;
    throw error;
  }
}

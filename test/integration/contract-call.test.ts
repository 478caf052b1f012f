import { CONST, sc, wallet } from '@cityofzion/neon-js';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { prepareContractCall, relayUntilFinal, type PreparedCall } from '../../src/chain/contract-call.ts';
import { createNeoRpc } from '../../src/chain/rpc.ts';
import { transferCall } from '../../src/chain/nep17.ts';
import { keySender, type Sender } from '../../src/chain/transaction.ts';
import { localSigningKey } from '../../src/signers/local-key.ts';
import { fundFromDevWallet } from '../../src/stack/dev-funder.ts';

const neo = () => createNeoRpc(inject('neoRpcUrl'));
const gasOf = async (address: string) => BigInt((await neo().getBalance(address, 'GAS')).amount);

function freshSender() {
  const account = new wallet.Account(wallet.generatePrivateKey());
  const sender = keySender(localSigningKey(account.privateKey));
  return { address: account.address, sender };
}

const gasTransferScript = (from: string, to: string, amount: bigint) =>
  sc.createScript(transferCall('GAS', from, to, amount));

async function prepared(script: string, sender: Sender): Promise<PreparedCall> {
  const call = await prepareContractCall(neo(), script, sender);
  if ('fault' in call) throw new Error(`unexpected fault: ${call.fault}`);
  return call;
}

describe('contract calls sent exactly once', () => {
  const payer = freshSender();
  beforeAll(() => fundFromDevWallet(inject('neoRpcUrl'), inject('devWallet'), payer.address, 10n ** 8n));

  it('relays one prepared call once, however often relayUntilFinal runs, and reads its execution', async () => {
    const recipient = freshSender();
    const height = (await neo().getBlockCount()) - 1;
    const call = await prepared(gasTransferScript(payer.address, recipient.address, 12_345n), payer.sender);
    expect(call).toEqual({
      hash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
      rawTransaction: expect.stringMatching(/^[0-9a-f]+$/),
      validUntilBlock: expect.any(Number),
    });
    expect(call.validUntilBlock).toBeGreaterThan(height);

    let waits = 0;
    const options = { pollMs: 100, onWait: () => void waits++ };
    // Two at once (a retried activity racing its first attempt), then once more after the block.
    const [first, racing] = await Promise.all([relayUntilFinal(neo(), call, options), relayUntilFinal(neo(), call)]);
    const again = await relayUntilFinal(neo(), call);

    expect(first).toEqual({
      outcome: 'included',
      blockHash: (await neo().getTransaction(call.hash)).blockhash,
      vmState: 'HALT',
      gasConsumed: expect.stringMatching(/^[1-9]\d*$/),
      systemFee: (await neo().getTransaction(call.hash)).sysfee,
      networkFee: (await neo().getTransaction(call.hash)).netfee,
      exception: null,
    });
    expect(racing).toEqual(first);
    expect(again).toEqual(first);
    expect(waits).toBeGreaterThan(0);
    expect(await gasOf(recipient.address)).toBe(12_345n);
  });

  it('answers the fault of the test run, and signs and sends nothing', async () => {
    const before = await gasOf(payer.address);
    const script = sc.createScript({ scriptHash: CONST.NATIVE_CONTRACT_HASH.GasToken, operation: 'nope', args: [] });
    expect(await prepareContractCall(neo(), script, payer.sender)).toEqual({
      fault: expect.stringContaining('nope'),
      gasConsumed: expect.stringMatching(/^\d+$/),
    });
    const count = await neo().getBlockCount();
    await expect.poll(() => neo().getBlockCount(), { timeout: 10_000 }).toBeGreaterThan(count + 1);
    expect(await gasOf(payer.address)).toBe(before);
  });

  it('answers expired, without sending, once the chain passed validUntilBlock without the transaction', async () => {
    const recipient = freshSender();
    const call = await prepared(gasTransferScript(payer.address, recipient.address, 1n), payer.sender);
    const height = (await neo().getBlockCount()) - 1;
    expect(await relayUntilFinal(neo(), { ...call, validUntilBlock: height })).toEqual({ outcome: 'expired' });
    await expect(neo().getTransaction(call.hash)).rejects.toThrow(/Unknown transaction/);
  });

  it('fails with the node`s reason when it refuses the transaction: a sender that cannot pay the fees', async () => {
    const broke = freshSender();
    const call = await prepared(gasTransferScript(broke.address, payer.address, 0n), broke.sender);
    await expect(relayUntilFinal(neo(), call, { pollMs: 100 })).rejects.toThrow(/Insufficient funds/);
  });
});

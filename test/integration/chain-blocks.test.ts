import { CONST, sc, u, wallet } from '@cityofzion/neon-js';
import { keySender } from '../../src/chain/transaction.ts';
import { localSigningKey } from '../../src/signers/local-key.ts';
import { describe, expect, inject, it } from 'vitest';
import { createEventAbiCache, readBlockNotifications, type BlockNotifications } from '../../src/chain/blocks.ts';
import { createNeoRpc } from '../../src/chain/rpc.ts';
import type { StackItem } from '../../src/chain/stack-item.ts';
import { transferCall } from '../../src/chain/nep17.ts';
import { sendAndConfirm } from '../../src/chain/contract-call.ts';
import { fundFromDevWallet } from '../../src/stack/dev-funder.ts';

const GAS = `0x${CONST.NATIVE_CONTRACT_HASH.GasToken}`;
const NEO = `0x${CONST.NATIVE_CONTRACT_HASH.NeoToken}`;
/** getblockhash and getblocknotifications, whatever the block holds. */
const callsPerBlock = 2;

/** A node client that records the method of each call it makes. */
function countedRpc() {
  const methods: string[] = [];
  const neo = createNeoRpc(inject('neoRpcUrl'), { onCall: (method) => methods.push(method) });
  return { neo, methods };
}

const freshAccount = () => new wallet.Account(wallet.generatePrivateKey());
const hash160 = (account: { scriptHash: string }) => `0x${account.scriptHash}`;

/** A Transfer's `[from, to, amount]`: script hashes as `0x…` (null for none), amount as a bigint. */
function transferOf(state: StackItem): [string | null, string | null, bigint] {
  const [from, to, amount] = state.value as StackItem[];
  const hash = (item: StackItem | undefined) =>
    item?.type === 'ByteString' ? `0x${u.reverseHex(u.base642hex(item.value as string))}` : null;
  return [hash(from), hash(to), BigInt(amount!.value as string)];
}

describe('readBlockNotifications', () => {
  it('reads a transaction`s Transfers and the block`s own GAS fee notifications, two calls a block', async () => {
    const [alice, bob] = [freshAccount(), freshAccount()];
    const chain = createNeoRpc(inject('neoRpcUrl'));
    const from = await chain.getBlockCount();
    await fundFromDevWallet(chain.url, inject('devWallet'), alice.address, 10n ** 8n);
    const script = sc.createScript(
      transferCall('GAS', alice.address, bob.address, 1n),
      transferCall('GAS', alice.address, bob.address, 2n),
    );
    const hash = await sendAndConfirm(chain, script, keySender(localSigningKey(alice.privateKey)));
    const { blockhash } = await chain.getTransaction(hash);

    // Read block after block, as a follower does, up to the transaction's.
    const { neo, methods } = countedRpc();
    const blocks: BlockNotifications[] = [];
    for (let index = from; !blocks.some((block) => block.blockHash === blockhash); index++) {
      const before = methods.length;
      blocks.push(await readBlockNotifications(neo, index));
      expect(methods.slice(before)).toEqual(['getblockhash', 'getblocknotifications']);
    }
    expect(methods.length).toBe(blocks.length * callsPerBlock);

    const block = blocks.at(-1)!;
    const ofTx = block.notifications.filter((notification) => notification.container === hash);
    expect(ofTx).toEqual(
      [1n, 2n].map((amount, notificationIndex) => ({
        blockIndex: block.blockIndex,
        blockHash: blockhash,
        container: hash,
        txHash: hash,
        notificationIndex,
        contract: GAS,
        eventName: 'Transfer',
        state: expect.anything(),
      })),
    );
    expect(ofTx.map((notification) => transferOf(notification.state))).toEqual([
      [hash160(alice), hash160(bob), 1n],
      [hash160(alice), hash160(bob), 2n],
    ]);

    // OnPersist burns alice's fees; PostPersist mints the committee's reward: both the block's own.
    const ofBlock = block.notifications.filter((notification) => notification.txHash === null);
    expect(ofBlock.map((notification) => [notification.container, notification.notificationIndex])).toEqual(
      ofBlock.map((_, notificationIndex) => [blockhash, notificationIndex]),
    );
    const fees = 10n ** 8n - 3n - BigInt((await chain.getBalance(alice.address, 'GAS')).amount);
    const gasMoves = ofBlock.filter((n) => n.contract === GAS).map((n) => transferOf(n.state));
    expect(gasMoves).toContainEqual([hash160(alice), null, fees]);
    expect(gasMoves.some(([source, , amount]) => source === null && amount > 0n)).toBe(true);
  });

  it('names the block and its committee reward when the block holds no transaction', async () => {
    const { neo } = countedRpc();
    const read = await readBlockNotifications(neo, 1);
    expect(read.blockHash).toBe(await neo.getBlockHash(1));
    expect(read.notifications.length).toBeGreaterThan(0);
    for (const notification of read.notifications) {
      expect(notification).toMatchObject({ blockIndex: 1, container: read.blockHash, txHash: null });
    }
  });
});

describe('createEventAbiCache', () => {
  it('answers events` parameters from one getcontractstate per contract, null for an unknown one, asked again (it may be deployed later)', async () => {
    const { neo, methods } = countedRpc();
    const abi = createEventAbiCache(neo);
    const transfer = [
      { name: 'from', type: 'Hash160' },
      { name: 'to', type: 'Hash160' },
      { name: 'amount', type: 'Integer' },
    ];
    expect(await abi.parameters(GAS, 'Transfer')).toEqual(transfer);
    expect(await abi.parameters(GAS.toUpperCase().replace('0X', '0x'), 'Transfer')).toEqual(transfer);
    expect(await abi.parameters(GAS, 'Nope')).toBeNull();
    expect(await abi.parameters(NEO, 'Vote')).toEqual(expect.arrayContaining([{ name: 'account', type: 'Hash160' }]));
    expect(await abi.parameters(`0x${'ab'.repeat(20)}`, 'Transfer')).toBeNull();
    expect(await abi.parameters(`0x${'ab'.repeat(20)}`, 'Transfer')).toBeNull();
    expect(methods).toEqual(['getcontractstate', 'getcontractstate', 'getcontractstate', 'getcontractstate']);
  });
});

import { describe, expect, it } from 'vitest';
import { relayUntilFinal, TransactionRejectedError } from '../../src/chain/contract-call.ts';
import { NeoRpcError, type NeoRpc } from '../../src/chain/rpc.ts';

const hash = `0x${'ab'.repeat(32)}`;
const call = { hash, rawTransaction: '00', validUntilBlock: 100 };
const down = () => Promise.reject(new TypeError('fetch failed'));

/** A node that is down for its first `downLooks` looks, then has the transaction in a block. */
function flakyNode(downLooks: number) {
  let looks = 0;
  const sent: string[] = [];
  const neo = {
    getBlockCount: () => (++looks <= downLooks ? down() : Promise.resolve(50)),
    getTransaction: () =>
      looks <= downLooks + 1
        ? Promise.reject(new NeoRpcError('getrawtransaction', 'Unknown transaction', -103))
        : Promise.resolve({ hash, blockhash: `0x${'cd'.repeat(32)}`, sysfee: '200', netfee: '30' }),
    sendRawTransaction: (raw: string) => {
      sent.push(raw);
      return Promise.resolve(hash);
    },
    getApplicationLog: () =>
      Promise.resolve({
        executions: [{ trigger: 'Application', vmstate: 'HALT', gasconsumed: '150', exception: null, stack: [] }],
      }),
  } as unknown as NeoRpc;
  return { neo, sent };
}

describe('relaying through an outage of the node', () => {
  it('tells each trouble and keeps looking, then tells the node is back and answers the block`s outcome', async () => {
    const { neo, sent } = flakyNode(3);
    const troubles: unknown[] = [];
    const result = await relayUntilFinal(neo, call, { pollMs: 1, onTrouble: (error) => void troubles.push(error) });
    expect(troubles).toEqual([expect.any(TypeError), expect.any(TypeError), expect.any(TypeError), null]);
    expect(sent).toEqual(['00']);
    expect(result).toEqual({
      outcome: 'included',
      blockHash: `0x${'cd'.repeat(32)}`,
      vmState: 'HALT',
      gasConsumed: '150',
      systemFee: '200',
      networkFee: '30',
      exception: null,
    });
  });

  it('fails on the first trouble without onTrouble, as for the tools that send a transaction and wait', async () => {
    await expect(relayUntilFinal(flakyNode(1).neo, call, { pollMs: 1 })).rejects.toThrow('fetch failed');
  });
});

/**
 * A node that dropped the transaction after it accepted it once (a restart, an eviction) and
 * refuses it when it is sent again, until a block past its validUntilBlock (100) exists.
 */
function forgetfulNode(looksBeforeExpiry: number, acceptsFirst = true) {
  let looks = 0;
  const sent: string[] = [];
  const neo = {
    getBlockCount: () => Promise.resolve(++looks > looksBeforeExpiry ? 102 : 50),
    getTransaction: () => Promise.reject(new NeoRpcError('getrawtransaction', 'Unknown transaction', -103)),
    sendRawTransaction: (raw: string) => {
      sent.push(raw);
      if (acceptsFirst && sent.length === 1) return Promise.resolve(hash);
      return Promise.reject(new NeoRpcError('sendrawtransaction', 'insufficient funds', -511));
    },
  } as unknown as NeoRpc;
  return { neo, sent };
}

describe("a node's refusal of a re-send", () => {
  it('is no proof once a node accepted the transaction: the relay goes on until validUntilBlock passes, then answers expired', async () => {
    const { neo, sent } = forgetfulNode(3);
    const troubles: unknown[] = [];
    let relayed = 0;
    const result = await relayUntilFinal(neo, call, {
      pollMs: 1,
      onTrouble: (error) => void troubles.push(error),
      onRelayed: () => void relayed++,
    });
    expect(result).toEqual({ outcome: 'expired' });
    expect(sent).toEqual(['00', '00', '00']);
    expect(relayed).toBe(1);
    expect(troubles).toEqual([expect.any(TransactionRejectedError), expect.any(TransactionRejectedError), null]);
  });

  it('is no proof either when an earlier relay (another worker`s) had it accepted: relayedBefore', async () => {
    const { neo } = forgetfulNode(2, false);
    const troubles: unknown[] = [];
    const options = { pollMs: 1, relayedBefore: true, onTrouble: (error: unknown) => void troubles.push(error) };
    expect(await relayUntilFinal(neo, call, options)).toEqual({ outcome: 'expired' });
    expect(troubles[0]).toBeInstanceOf(TransactionRejectedError);
  });

  it('still fails the relay at once when no node ever accepted the transaction: the same bytes never will be', async () => {
    const { neo, sent } = forgetfulNode(5, false);
    const error = await relayUntilFinal(neo, call, { pollMs: 1, onTrouble: () => undefined }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TransactionRejectedError);
    expect(sent).toHaveLength(1);
  });
});

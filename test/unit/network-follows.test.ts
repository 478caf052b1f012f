import { ApplicationFailure } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { NetworkFollows, poolOfMagic } from '../../src/automations/blocks/network-follows.ts';
import { networkOf, networkUnavailableType } from '../../src/chain/network-of.ts';
import type { NeoRpc } from '../../src/chain/rpc.ts';

/** A network's nodes as far as finding them goes: its name and the magic it answers (or a failure). */
const pool = (name: string, magic: number | Error) =>
  ({
    name,
    getNetworkMagic: () => (magic instanceof Error ? Promise.reject(magic) : Promise.resolve(magic)),
  }) as unknown as NeoRpc & { name: string };

const mainnet = pool('mainnet', 860833102);
const testnet = pool('testnet', 894710606);
const checks = { triggerFailureLimit: 3, contractCheckMs: 30_000 };

describe("a follower's network, found by the magic it is keyed by", () => {
  it('is the pool answering that magic, whichever its place in the configuration', async () => {
    expect(await poolOfMagic([mainnet, testnet], 894710606)).toBe(testnet);
    expect(await poolOfMagic([mainnet, testnet], 860833102)).toBe(mainnet);
  });

  it('is found even while another network does not answer', async () => {
    expect(await poolOfMagic([pool('down', new Error('refused')), testnet], 894710606)).toBe(testnet);
  });

  it('is looked for again (a retryable failure) while a network that did not answer may be it', async () => {
    const failure = await poolOfMagic([mainnet, pool('down', new Error('refused'))], 894710606).catch(
      (e: unknown) => e,
    );
    expect(failure).toBeInstanceOf(Error);
    expect(failure).not.toBeInstanceOf(ApplicationFailure);
  });

  it('fails for good, naming the magic, once every network answered and none has it (taken out of config)', async () => {
    const failure = await poolOfMagic([mainnet, testnet], 12345).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(ApplicationFailure);
    expect(failure).toMatchObject({ type: networkUnavailableType, nonRetryable: true });
    expect((failure as Error).message).toContain('12345');
  });
});

describe("each network's follow in a worker", () => {
  it('is its own (nodes, name, caches) and kept across rounds', async () => {
    const follows = new NetworkFollows([mainnet, testnet], checks);
    const ofTestnet = await follows.of('894710606');
    const ofMainnet = await follows.of('860833102');
    expect(ofTestnet).toMatchObject({ name: 'testnet', neo: testnet });
    expect(ofMainnet).toMatchObject({ name: 'mainnet', neo: mainnet });
    expect(ofTestnet.watchers).not.toBe(ofMainnet.watchers);
    expect(ofTestnet.state).not.toBe(ofMainnet.state);
    expect(ofTestnet.abi).not.toBe(ofMainnet.abi);
    expect(await follows.of('894710606')).toBe(ofTestnet);
  });

  it('is looked up again after a lookup that failed', async () => {
    let answers: number | Error = new Error('not yet');
    const late = {
      name: 'late',
      getNetworkMagic: () => (answers instanceof Error ? Promise.reject(answers) : Promise.resolve(answers)),
    } as unknown as NeoRpc & { name: string };
    const follows = new NetworkFollows([late], checks);
    await expect(follows.of('7')).rejects.toThrow(/magic 7/);
    answers = 7;
    expect((await follows.of('7')).name).toBe('late');
  });
});

describe("a run's network at run time", () => {
  it('is the nodes of its name', () => {
    expect(networkOf(new Map([['testnet', testnet]]), 'testnet')).toBe(testnet);
  });

  it('fails without retry, naming it, when the configuration lacks it', () => {
    let failure: unknown;
    try {
      networkOf(new Map([['testnet', testnet]]), 'mainnet');
    } catch (error) {
      failure = error;
    }
    expect(failure).toBeInstanceOf(ApplicationFailure);
    expect(failure).toMatchObject({ type: networkUnavailableType, nonRetryable: true });
    expect((failure as Error).message).toContain('"mainnet"');
  });
});

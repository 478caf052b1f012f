import { mkdtemp, rm } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { CONST, rpc } from '@cityofzion/neon-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNeoRpc } from '../../src/chain/rpc.ts';
import { startNeoDevnet, type NeoDevnet, type NeoDevnetOptions } from '../../src/stack/neo-devnet.ts';
import { freePort } from '../../src/net/ports.ts';

const neoGoPath = process.env.NEOFLOW_NEO_GO ?? join(homedir(), '.cache/neoflow/bin/neo-go');
const gasHash = `0x${CONST.NATIVE_CONTRACT_HASH.GasToken}`;

describe('neo-go devnet', () => {
  let options: NeoDevnetOptions;
  let devnet: NeoDevnet;

  beforeAll(async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'neoflow-devnet-'));
    // leveldb rather than inmemory: the restart test needs the chain to survive.
    options = { neoGoPath, dataDir, rpcPort: await freePort(), blockTimeMs: 1000 };
    devnet = await startNeoDevnet(options);
  }, 40_000);

  afterAll(async () => {
    await devnet?.stop();
    if (options) await rm(options.dataDir, { recursive: true, force: true });
  });

  it('makes a block every second', async () => {
    const client = createNeoRpc(devnet.rpcUrl);
    const start = await client.getBlockCount();
    const deadline = Date.now() + 10_000;
    let count = start;
    while (count < start + 5 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 250));
      count = await client.getBlockCount();
    }
    expect(count - start).toBeGreaterThanOrEqual(5);
  }, 15_000);

  it('funds the wallet with GAS at genesis', async () => {
    const { balance } = await new rpc.RPCClient(devnet.rpcUrl).getNep17Balances(devnet.wallet.address);
    const gas = balance.find((entry) => entry.assethash === gasHash);
    expect(BigInt(gas?.amount ?? '0')).toBeGreaterThan(0n);
  });

  it('continues the chain and keeps the wallet across a restart', async () => {
    const before = { count: await createNeoRpc(devnet.rpcUrl).getBlockCount(), address: devnet.wallet.address };
    await devnet.stop();
    devnet = await startNeoDevnet(options);
    expect(await createNeoRpc(devnet.rpcUrl).getBlockCount()).toBeGreaterThanOrEqual(before.count);
    expect(devnet.wallet.address).toBe(before.address);
  }, 60_000);
});

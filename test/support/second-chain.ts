import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inject } from 'vitest';
import { freePort } from '../../src/net/ports.ts';
import { fundFromDevWallet } from '../../src/stack/dev-funder.ts';
import { startNeoDevnet, type DevWallet } from '../../src/stack/neo-devnet.ts';

/** A dev chain a test reaches: its node, and the wallet that holds its genesis GAS. */
export interface DevChain {
  rpcUrl: string;
  wallet: DevWallet;
}

export interface SecondChain extends DevChain {
  magic: number;
  stop(): Promise<void>;
}

/** "NFL2" in ASCII: not the dev chain's "NFLW", so that the two chains are two networks. */
const secondChainMagic = 0x4e464c32;

/** The chain the integration tests' setup started for every file. */
export const sharedChain = (): DevChain => ({ rpcUrl: inject('neoRpcUrl'), wallet: inject('devWallet') });

/**
 * A second single-validator neo-go chain beside the shared one (issue 45): another magic, its own
 * validator and wallet, port and data directory, its blocks in memory. The two nodes never peer
 * (neither is given a seed), so each network has its own blocks and its own GAS.
 */
export async function startSecondChain(magic = secondChainMagic): Promise<SecondChain> {
  const dataDir = await mkdtemp(join(tmpdir(), 'neoflow-second-chain-'));
  const removeDir = () => rm(dataDir, { recursive: true, force: true });
  try {
    const devnet = await startNeoDevnet({
      neoGoPath: inject('neoGoPath'),
      dataDir,
      rpcPort: await freePort(),
      storage: 'inmemory',
      magic,
    });
    return {
      rpcUrl: devnet.rpcUrl,
      wallet: devnet.wallet,
      magic,
      stop: async () => {
        await devnet.stop();
        await removeDir();
      },
    };
  } catch (error) {
    await removeDir();
    throw error;
  }
}

/**
 * Gives `address` `amount` GAS fractions on each chain, from that chain's own dev wallet (as
 * `neoflow keys create` funds a signer on the dev chain), once in a block everywhere; answers the
 * transfers' hashes, chain by chain.
 */
export const fundOnChains = (chains: DevChain[], address: string, amount: bigint): Promise<string[]> =>
  Promise.all(chains.map((chain) => fundFromDevWallet(chain.rpcUrl, chain.wallet, address, amount)));

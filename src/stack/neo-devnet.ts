import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { wallet } from '@cityofzion/neon-js';
import { createNeoRpc } from '../chain/rpc.ts';
import { ensureValidatorWallet, unlockWif, writeNodeConfig } from './neo-devnet-config.ts';
import { isPortFree } from '../net/ports.ts';
import { makePrivateDir } from './private-dir.ts';
import { spawnManaged, waitFor, type ManagedProcess } from './process.ts';

export interface DevWallet {
  /** The 1-of-1 multisig committee account that holds the genesis NEO and GAS. */
  address: string;
  scriptHash: string;
  /** The validator key: it signs for `address` too, being its only member. */
  wif: string;
  walletPath: string;
  password: string;
}

export interface NeoDevnet {
  rpcUrl: string;
  wallet: DevWallet;
  stop(): Promise<void>;
}

export interface NeoDevnetOptions {
  neoGoPath: string;
  /** Everything lives here: wallet, its password, node config, chain database, log. */
  dataDir: string;
  /** RPC listens on 127.0.0.1:<rpcPort>. */
  rpcPort: number;
  /** Default 1000. It is written into the chain at genesis, so it only applies to a new chain. */
  blockTimeMs?: number;
  /** Default 'leveldb', which keeps the chain across restarts. */
  storage?: 'leveldb' | 'inmemory';
  /**
   * The network's magic, default the dev chain's own (that of `neoflow up`). Like the block time,
   * it is written at genesis: a chain kept in `dataDir` must be started with the same again.
   */
  magic?: number;
}

const readyTimeoutMs = 30_000;
const logTailLines = 20;

/** Starts a single-validator Neo N3 network, creating its key on first use of `dataDir`. */
export async function startNeoDevnet(options: NeoDevnetOptions): Promise<NeoDevnet> {
  // neo-go 0.122 does not exit when its RPC port is taken: it stalls and ignores SIGTERM.
  if (!(await isPortFree(options.rpcPort))) {
    throw new Error(`neo-go devnet: RPC port ${options.rpcPort} is already in use`);
  }
  const dataDir = resolve(options.dataDir);
  await makePrivateDir(dataDir);
  const validator = await ensureValidatorWallet(dataDir);
  const configPath = await writeNodeConfig({
    dataDir,
    validator,
    rpcPort: options.rpcPort,
    blockTimeMs: options.blockTimeMs ?? 1000,
    storage: options.storage ?? 'leveldb',
    magic: options.magic,
  });
  const logPath = join(dataDir, 'neo-go.log');
  const node = spawnManaged('neo-go', options.neoGoPath, {
    args: ['node', '--config-file', configPath],
    cwd: dataDir,
    output: logPath,
  });
  const rpcUrl = `http://127.0.0.1:${options.rpcPort}`;
  // Scrypt takes about a second: let it run while the node boots.
  const wif = unlockWif(validator);
  // Observed now so that a failed start, which never awaits it, leaves no unhandled rejection.
  wif.catch(() => undefined);
  try {
    await waitForBlocks(rpcUrl, node);
    return {
      rpcUrl,
      wallet: {
        address: validator.committeeAddress,
        scriptHash: wallet.getScriptHashFromAddress(validator.committeeAddress),
        wif: await wif,
        walletPath: validator.walletPath,
        password: validator.password,
      },
      stop: () => node.stop(),
    };
  } catch (error) {
    await node.stop();
    const reason = error instanceof Error ? error.message : String(error);
    const log = await tail(logPath);
    throw new Error(`neo-go devnet failed to start: ${reason}\n--- last lines of ${logPath} ---\n${log}`, {
      cause: error,
    });
  }
}

async function waitForBlocks(rpcUrl: string, node: ManagedProcess): Promise<number> {
  const rpc = createNeoRpc(rpcUrl, { timeoutMs: 2000 });
  let firstCount: number | undefined;
  return waitFor(
    `neo-go block production on ${rpcUrl}`,
    async () => {
      const count = await rpc.getBlockCount();
      firstCount ??= count;
      // A reused chain is already long: only a block made by this run proves the validator signs.
      return count > Math.max(firstCount, 2) ? count : undefined;
    },
    { timeoutMs: readyTimeoutMs, aborted: node.exited },
  );
}

async function tail(logPath: string): Promise<string> {
  // The log is written through a stream we do not own: give its last writes a moment to land.
  await sleep(100);
  const text = (await readFile(logPath, 'utf8').catch(() => '')).trimEnd();
  return text ? text.split('\n').slice(-logTailLines).join('\n') : '(empty)';
}

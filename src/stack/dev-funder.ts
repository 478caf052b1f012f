import { join } from 'node:path';
import { sc, wallet } from '@cityofzion/neon-js';
import type { Config } from '../config.ts';
import { createNeoRpc } from '../chain/rpc.ts';
import { transferCall } from '../chain/nep17.ts';
import { sendAndConfirm } from '../chain/contract-call.ts';
import { reachable } from '../reachable.ts';
import { localSigningKey } from '../signers/local-key.ts';
import type { DevWallet } from './neo-devnet.ts';
import { readValidatorWallet, unlockWif } from './neo-devnet-config.ts';

/** What each new signer gets on the dev chain of `neoflow up`, in GAS. */
export const devFundingGas = 100;

/** GAS has 8 decimals: amounts on chain count 10^-8 GAS. */
const gasFractions = 10n ** 8n;

/**
 * The dev wallet's committee account, which holds the genesis GAS: the sender that signs for it,
 * and the script of a GAS transfer from it, apart so that one sending many transfers (the
 * automations benchmark) derives the account once.
 */
export function devCommittee(devWallet: Pick<DevWallet, 'wif'>) {
  const validator = new wallet.Account(devWallet.wif);
  // The committee is the 1-of-1 multisig account of the validator key: that key alone signs for it.
  const verificationScript = wallet.constructMultiSigVerificationScript(1, [validator.publicKey]);
  const committee = wallet.getScriptHashFromVerificationScript(verificationScript);
  return {
    sender: { key: localSigningKey(validator.privateKey), verificationScript, publicKey: validator.publicKey },
    /** Sends `amount` GAS fractions to `toAddress`. */
    transferScript: (toAddress: string, amount: bigint) =>
      new sc.ScriptBuilder()
        .emitContractCall(transferCall('GAS', committee, toAddress, amount))
        // `transfer` answers false, rather than faulting, when it refuses: make that a fault.
        .emit(sc.OpCode.ASSERT)
        .build(),
  };
}

/**
 * Transfers `amount` GAS fractions from the dev wallet's committee account to `toAddress`, and
 * waits until the transfer is in a block; returns its hash.
 */
export async function fundFromDevWallet(
  rpcUrl: string,
  devWallet: Pick<DevWallet, 'wif'>,
  toAddress: string,
  amount: bigint,
): Promise<string> {
  const { sender, transferScript } = devCommittee(devWallet);
  return sendAndConfirm(createNeoRpc(rpcUrl), transferScript(toAddress, amount), sender);
}

/** Funds a new signer's address with `devFundingGas`; answers the transaction hash. */
export type DevFunder = (address: string) => Promise<string>;

/**
 * The funder of new signers when the CLI runs beside the dev chain of `neoflow up`: never in
 * production, only with NEO_RPC_URL unset and the chain's wallet in the data directory. It
 * proves the chain answers first, so that a stopped chain fails a command before it changes
 * anything.
 */
export async function devChainFunder(config: Config): Promise<DevFunder | undefined> {
  if (config.env === 'production' || config.neo.rpcUrl) return undefined;
  const validator = await readValidatorWallet(join(config.dataDir, 'neo'));
  if (!validator) return undefined;
  const rpcUrl = `http://127.0.0.1:${config.neo.devRpcPort}`;
  await reachable('NEOFLOW_NEO_RPC_PORT (NEO_RPC_URL unset, so the dev chain of `neoflow up`)', () =>
    createNeoRpc(rpcUrl, { timeoutMs: 5000 }).getBlockCount(),
  );
  const wif = await unlockWif(validator);
  return (address) => fundFromDevWallet(rpcUrl, { wif }, address, BigInt(devFundingGas) * gasFractions);
}

import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { CONST, experimental, sc, tx, u, wallet } from '@cityofzion/neon-js';
import { relayUntilFinal, sendAndConfirm } from '../../src/chain/contract-call.ts';
import type { NeoRpc } from '../../src/chain/rpc.ts';
import { keySender, sign, signedBy, type Sender } from '../../src/chain/transaction.ts';
import { localSigningKey } from '../../src/signers/local-key.ts';
import { fundFromDevWallet } from '../../src/stack/dev-funder.ts';
import type { DevWallet } from '../../src/stack/neo-devnet.ts';

/** A contract as neo-go compiles it: what ContractManagement's `deploy` and `update` take. */
export interface CompiledContract {
  nef: Buffer;
  /** The manifest's JSON, as the compiler wrote it. */
  manifest: string;
}

/**
 * Compiles the Go contract of `test/fixtures/contracts/<name>/` with neo-go, its configuration
 * (name, events, permissions) from `<config>.yml` there. The Go toolchain resolves the contract's
 * `interop` module (pinned in its go.mod and go.sum) from the module cache, else through the
 * module proxy, once.
 */
export async function compileContract(
  neoGoPath: string,
  name: string,
  config = name,
  source = fileURLToPath(new URL(`../fixtures/contracts/${name}/`, import.meta.url)),
): Promise<CompiledContract> {
  const out = await mkdtemp(join(tmpdir(), `neoflow-contract-${name}-`));
  try {
    const nefPath = join(out, `${name}.nef`);
    const manifestPath = join(out, `${name}.manifest.json`);
    const args = ['contract', 'compile', '-i', '.', '-c', `${config}.yml`, '-o', nefPath, '-m', manifestPath];
    await promisify(execFile)(neoGoPath, args, {
      cwd: source,
      env: { ...process.env, GOTOOLCHAIN: 'local' },
      timeout: 120_000,
    });
    return { nef: await readFile(nefPath), manifest: await readFile(manifestPath, 'utf8') };
  } finally {
    await rm(out, { recursive: true, force: true });
  }
}

/** A fresh account with `gas` GAS from the dev wallet, to deploy and call contracts with. */
export async function fundedSender(rpcUrl: string, devWallet: DevWallet, gas: bigint): Promise<Sender> {
  const account = new wallet.Account(wallet.generatePrivateKey());
  await fundFromDevWallet(rpcUrl, devWallet, account.address, gas * 10n ** 8n);
  return keySender(localSigningKey(account.privateKey));
}

const bytes = (buffer: Buffer) => sc.ContractParam.byteArray(u.HexString.fromHex(buffer.toString('hex'), true));

/**
 * Deploys `contract` from `sender` (its `_deploy` given `data`) and waits for its block; answers
 * its `0x` script hash.
 */
export async function deployContract(
  neo: NeoRpc,
  sender: Sender,
  contract: CompiledContract,
  data?: InstanceType<typeof sc.ContractParam>,
): Promise<string> {
  const script = sc.createScript({
    scriptHash: CONST.NATIVE_CONTRACT_HASH.ManagementContract,
    operation: 'deploy',
    args: [bytes(contract.nef), sc.ContractParam.string(contract.manifest), ...(data ? [data] : [])],
  });
  await sendAndConfirm(neo, script, sender);
  const deployer = u.HexString.fromHex(wallet.getScriptHashFromVerificationScript(sender.verificationScript));
  const { checksum } = sc.NEF.fromBuffer(contract.nef);
  const { name } = JSON.parse(contract.manifest) as { name: string };
  return `0x${experimental.getContractHash(deployer, checksum, name)}`;
}

/** Calls `operation` of the contract at `scriptHash` in a transaction of `sender`, and waits for its block. */
export async function callContract(
  neo: NeoRpc,
  sender: Sender,
  scriptHash: string,
  operation: string,
  args: InstanceType<typeof sc.ContractParam>[],
): Promise<string> {
  return sendAndConfirm(neo, sc.createScript({ scriptHash: scriptHash.replace(/^0x/, ''), operation, args }), sender);
}

/** Updates the contract at `scriptHash` through its own `update(script, manifest)`. */
export const updateContract = (neo: NeoRpc, sender: Sender, scriptHash: string, contract: CompiledContract) =>
  callContract(neo, sender, scriptHash, 'update', [bytes(contract.nef), bytes(Buffer.from(contract.manifest))]);

/**
 * Sends `script` from `sender` without a test run, with a fixed system fee, and waits for its
 * block: a script that faults is then in a block all the same, FAULTed (its fees burned).
 */
export async function sendFaulting(neo: NeoRpc, script: string, sender: Sender): Promise<string> {
  const signers = signedBy(wallet.getScriptHashFromVerificationScript(sender.verificationScript));
  const [height, magic] = await Promise.all([neo.getBlockCount(), neo.getNetworkMagic()]);
  const transaction = new tx.Transaction({
    signers,
    script,
    systemFee: '100000000',
    validUntilBlock: height + 100,
    witnesses: [{ invocationScript: '', verificationScript: sender.verificationScript }],
  });
  transaction.networkFee = u.BigInteger.fromNumber(await neo.calculateNetworkFee(transaction));
  const signed = await sign({ transaction, magic }, sender);
  const call = { hash: `0x${signed.hash()}`, rawTransaction: signed.serialize(true), validUntilBlock: height + 100 };
  const result = await relayUntilFinal(neo, call, { pollMs: 200 });
  if (result.outcome === 'expired') throw new Error(`transaction ${call.hash} expired before a block included it`);
  return call.hash;
}

/** The address of `sender`'s account. */
export const senderAddress = (sender: Sender) =>
  wallet.getAddressFromScriptHash(wallet.getScriptHashFromVerificationScript(sender.verificationScript));

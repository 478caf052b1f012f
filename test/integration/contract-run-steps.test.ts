import { sc, wallet } from '@cityofzion/neon-js';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Automation } from '../../src/automations/model/automation.entity.ts';
import { prepareContractRun, relayContractRun, type ChainDeps } from '../../src/automations/actions/contract-steps.ts';
import { AutomationRun } from '../../src/automations/model/run.entity.ts';
import { createNeoRpc, type NeoRpc } from '../../src/chain/rpc.ts';
import { systemFeeFor } from '../../src/chain/transaction.ts';
import { fundFromDevWallet } from '../../src/stack/dev-funder.ts';
import { gasTransferAction } from '../support/automations.ts';
import { callContract, compileContract, deployContract, fundedSender } from '../support/contracts.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { issueKey, testMasters } from '../support/keys.ts';
import { storeFiredRun } from '../support/run-rows.ts';

let db: TestDatabase;
let accountId: string;
let signerAddress: string;
beforeAll(async () => {
  db = await createTestDatabase();
  const issued = await issueKey(db.orm);
  ({ accountId } = issued);
  signerAddress = issued.signer.address;
  await fundFromDevWallet(inject('neoRpcUrl'), inject('devWallet'), signerAddress, 10n ** 9n);
});
afterAll(async () => {
  await db?.drop();
});

const fork = () => db.orm.em.fork();
const neo = () => createNeoRpc(inject('neoRpcUrl'));
const deps = (rpc: NeoRpc = neo()): ChainDeps => ({
  em: fork(),
  networks: new Map([['default', rpc]]),
  masterKeys: testMasters,
});
const runRow = (runId: string) => fork().findOneOrFail(AutomationRun, { id: runId }, { populate: ['txRaw'] });
const newAddress = () => new wallet.Account(wallet.generatePrivateKey()).address;

/** A contract automation sending `amount` GAS fractions to `recipient`, with one run fired and not begun. */
const firedContractRun = (recipient: string, amount = '1000') =>
  firedRun(gasTransferAction(signerAddress, recipient, amount) as Automation['action']);

/** An automation of `action`, with one run fired and not begun. */
const firedRun = (action: Automation['action']) => storeFiredRun(db.orm, accountId, action);

/**
 * A node whose test invocation, height and network magic wait until `release`: the attempt that
 * uses it reads the run, then stalls as an attempt does whose activity is retried meanwhile.
 * `answer` replaces the test invocation's answer.
 */
function stalledNode(answer?: Awaited<ReturnType<NeoRpc['invokeScript']>>) {
  const node = neo();
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let reached!: () => void;
  const stalled = new Promise<void>((resolve) => (reached = resolve));
  const later =
    <A extends unknown[], T>(call: (...args: A) => Promise<T>) =>
    async (...args: A) => {
      reached();
      await released;
      return call(...args);
    };
  const rpc: NeoRpc = {
    ...node,
    invokeScript: later(answer ? async () => answer : node.invokeScript),
    getBlockCount: later(node.getBlockCount),
    getNetworkMagic: later(node.getNetworkMagic),
  };
  return { rpc, stalled, release };
}

const nextBlock = async () => {
  const count = await neo().getBlockCount();
  await expect.poll(() => neo().getBlockCount(), { timeout: 20_000, interval: 100 }).toBeGreaterThan(count);
};

describe("a contract action's run steps", () => {
  it('keeps the transaction stored first: a stale prepare that signed later replaces nothing, and the run sends one', async () => {
    const recipient = newAddress();
    const runId = await firedContractRun(recipient, '777');
    const stale = stalledNode();
    const staleAttempt = prepareContractRun(deps(stale.rpc), runId);
    await stale.stalled;

    expect(await prepareContractRun(deps(), runId)).toBe('sent');
    const stored = await runRow(runId);
    expect(stored.txHash).toMatch(/^0x[0-9a-f]{64}$/);
    // Signed a block later, the stale attempt's transaction differs from the stored one.
    await nextBlock();
    stale.release();
    expect(await staleAttempt).toBe('sent');
    expect(await prepareContractRun(deps(), runId)).toBe('sent');
    const kept = await runRow(runId);
    expect({ txHash: kept.txHash, txRaw: kept.txRaw, validUntilBlock: kept.validUntilBlock }).toEqual({
      txHash: stored.txHash,
      txRaw: stored.txRaw,
      validUntilBlock: stored.validUntilBlock,
    });

    expect(await relayContractRun(deps(), runId, () => undefined)).toBe('success');
    expect((await runRow(runId)).txHash).toBe(stored.txHash);
    expect((await neo().getBalance(recipient, 'GAS')).amount).toBe('777');
  });

  it('leaves a run that holds a transaction running when a stale prepare`s test run faulted', async () => {
    const runId = await firedContractRun(newAddress());
    const stale = stalledNode({ state: 'FAULT', exception: 'changed since', gasconsumed: '100', stack: [] });
    const staleAttempt = prepareContractRun(deps(stale.rpc), runId);
    await stale.stalled;
    expect(await prepareContractRun(deps(), runId)).toBe('sent');
    stale.release();
    expect(await staleAttempt).toBe('sent');
    expect(await runRow(runId)).toMatchObject({ status: 'running', vmState: null, error: null });
    expect(await relayContractRun(deps(), runId, () => undefined)).toBe('success');
  });

  it('records the fees its transaction burned as the chain has them, its system fee the test run`s plus the margin', async () => {
    const gasOf = async (address: string) => BigInt((await neo().getBalance(address, 'GAS')).amount);
    const amount = 4321n;
    const runId = await firedContractRun(newAddress(), amount.toString());
    expect(await prepareContractRun(deps(), runId)).toBe('sent');
    const before = await gasOf(signerAddress);
    expect(await relayContractRun(deps(), runId, () => undefined)).toBe('success');
    const run = await runRow(runId);
    const onChain = await neo().getTransaction(run.txHash!);
    const [execution] = (await neo().getApplicationLog(run.txHash!)).executions;
    expect(run).toMatchObject({
      status: 'success',
      vmState: 'HALT',
      gasConsumed: execution!.gasconsumed,
      systemFee: onChain.sysfee,
      networkFee: onChain.netfee,
    });
    // A GAS transfer costs the same in its block as in its test run.
    expect(BigInt(run.systemFee!)).toBe(systemFeeFor(run.gasConsumed!));
    // What the signer paid: the amount and both fees, burned in full.
    expect(before - (await gasOf(signerAddress))).toBe(amount + BigInt(run.systemFee!) + BigInt(run.networkFee!));
  });

  it('HALTs in its block though what it writes grew there since its test run: the system fee`s margin pays the bytes', async () => {
    const deployer = await fundedSender(inject('neoRpcUrl'), inject('devWallet'), 100n);
    const keeper = await deployContract(neo(), deployer, await compileContract(inject('neoGoPath'), 'keeper'));
    const set = (value: string) => callContract(neo(), deployer, keeper, 'set', [sc.ContractParam.string(value)]);
    await set('0123456789');
    const action = {
      type: 'contract',
      scriptHash: keeper,
      operation: 'set',
      args: [{ type: 'String', value: '9876543210' }],
    };
    const runId = await firedRun(action as Automation['action']);
    // What the call costs now, as its test run in prepare sees it: the stored value keeps its length.
    const script = sc.createScript({
      scriptHash: keeper.slice(2),
      operation: 'set',
      args: [sc.ContractParam.string('9876543210')],
    });
    const { gasconsumed: testRun } = await neo().invokeScript(script);
    expect(await prepareContractRun(deps(), runId)).toBe('sent');

    // Before its block, the stored value shrinks to one byte: the call then grows it by nine.
    await set('x');
    expect(await relayContractRun(deps(), runId, () => undefined)).toBe('success');
    const run = await runRow(runId);
    expect(run).toMatchObject({ status: 'success', vmState: 'HALT', error: null });
    expect(BigInt(run.gasConsumed!)).toBeGreaterThan(BigInt(testRun));
    expect(BigInt(run.systemFee!)).toBeGreaterThanOrEqual(systemFeeFor(testRun));
  });
});

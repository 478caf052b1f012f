import { tx, wallet } from '@cityofzion/neon-js';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Automation } from '../../src/automations/model/automation.entity.ts';
import { prepareContractRun, relayContractRun, type ChainDeps } from '../../src/automations/actions/contract-steps.ts';
import { signerAttempts } from '../../src/automations/actions/signing-steps.ts';
import { signerSpend } from '../../src/automations/budget/gas-spend.ts';
import { AutomationRun } from '../../src/automations/model/run.entity.ts';
import { Account } from '../../src/auth/account.entity.ts';
import { gasText } from '../../src/chain/gas-amount.ts';
import { createNeoRpc } from '../../src/chain/rpc.ts';
import { addSealedSigner } from '../../src/signers/default-signer.ts';
import { fundFromDevWallet } from '../../src/stack/dev-funder.ts';
import { gasTransferAction } from '../support/automations.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { issueKey, testMasters } from '../support/keys.ts';
import { storeFiredRun } from '../support/run-rows.ts';

let db: TestDatabase;
let accountId: string;
let defaultAddress: string;
beforeAll(async () => {
  db = await createTestDatabase();
  const issued = await issueKey(db.orm);
  ({ accountId } = issued);
  defaultAddress = issued.signer.address;
  await fundFromDevWallet(inject('neoRpcUrl'), inject('devWallet'), defaultAddress, 10n ** 9n);
});
afterAll(async () => {
  await db?.drop();
});

const fork = () => db.orm.em.fork();
const neo = () => createNeoRpc(inject('neoRpcUrl'));
const deps = (): ChainDeps => ({ em: fork(), networks: new Map([['default', neo()]]), masterKeys: testMasters });
const runRow = (runId: string) => fork().findOneOrFail(AutomationRun, { id: runId }, { populate: ['txRaw'] });
const newAccount = () => new wallet.Account(wallet.generatePrivateKey());
const gasOf = async (address: string) => BigInt((await neo().getBalance(address, 'GAS')).amount);
const sql = (statement: string, params: unknown[]) => fork().getConnection().execute(statement, params);

let imports = 0;
/** Imports `key` (its WIF) as a signer of the account, as POST /v1/signers {type: "import"} stores it; answers its id. */
async function importSigner(key: InstanceType<typeof wallet.Account>): Promise<string> {
  const em = fork();
  const account = await em.findOneOrFail(Account, { id: accountId });
  const signer = addSealedSigner(em, testMasters, account, {
    name: `imported ${++imports}`,
    type: 'import',
    wif: key.WIF,
  });
  await em.flush();
  return signer.id;
}

/** A contract automation that names signer `signerId` and sends `amount` GAS fractions from `from`, one run fired. */
async function firedRunOf(signerId: string, from: string, recipient: string, amount: string): Promise<string> {
  const runId = await storeFiredRun(
    db.orm,
    accountId,
    gasTransferAction(from, recipient, amount) as Automation['action'],
  );
  await sql(
    `update "automations" set "signer_id" = ? where "id" = (select "automation_id" from "automation_runs" where "id" = ?)`,
    [signerId, runId],
  );
  return runId;
}

describe('a contract action signed by the signer its automation names', () => {
  it("sends from an imported key's address: the GAS and both fees leave that address, the default's untouched", async () => {
    const imported = newAccount();
    const signerId = await importSigner(imported);
    await fundFromDevWallet(inject('neoRpcUrl'), inject('devWallet'), imported.address, 10n ** 8n);
    const recipient = newAccount().address;
    const runId = await firedRunOf(signerId, imported.address, recipient, '4321');
    const [importedBefore, defaultBefore] = [await gasOf(imported.address), await gasOf(defaultAddress)];

    expect(await prepareContractRun(deps(), runId)).toBe('sent');
    expect(await relayContractRun(deps(), runId, () => undefined)).toBe('success');

    const run = await runRow(runId);
    expect(run).toMatchObject({ status: 'success', vmState: 'HALT', signerId });
    const fees = BigInt(run.systemFee!) + BigInt(run.networkFee!);
    expect(await gasOf(recipient)).toBe(4321n);
    expect(importedBefore - (await gasOf(imported.address))).toBe(4321n + fees);
    expect(await gasOf(defaultAddress)).toBe(defaultBefore);
    const sent = tx.Transaction.deserialize(run.txRaw!);
    expect(sent.sender.toBigEndian()).toBe(imported.scriptHash);
    expect(sent.witnesses[0]!.verificationScript.toBigEndian()).toBe(
      wallet.getVerificationScriptFromPublicKey(imported.publicKey),
    );
    // Its fees count against that signer's spend on the network.
    expect(await signerSpend(fork(), signerId, 'default')).toEqual({ today: fees, total: fees, reserved: 0n });
  });

  it('ends the run SignerMismatch, nothing sent, when the recorded public key is not the sealed key`s', async () => {
    const sealed = newAccount();
    const recorded = newAccount();
    const signerId = await importSigner(sealed);
    // The record names another key and its address: the sealed key's signature cannot verify for it.
    await sql(`update "signers" set "public_key" = ?, "address" = ?, "script_hash" = ? where "id" = ?`, [
      recorded.publicKey,
      recorded.address,
      `0x${recorded.scriptHash}`,
      signerId,
    ]);
    await fundFromDevWallet(inject('neoRpcUrl'), inject('devWallet'), recorded.address, 10n ** 8n);
    const runId = await firedRunOf(signerId, recorded.address, newAccount().address, '1');
    const before = await gasOf(recorded.address);

    expect(await prepareContractRun(deps(), runId)).toBe('failure');
    const run = await runRow(runId);
    expect(run).toMatchObject({ status: 'failure', txHash: null, txRaw: null, error: { name: 'SignerMismatch' } });
    expect(run.error!.message).toContain('recorded public key does not verify');
    // Its reservation released: the signer spent nothing, and its address holds what it held.
    expect(await signerSpend(fork(), signerId, 'default')).toEqual({ today: 0n, total: 0n, reserved: 0n });
    expect(await gasOf(recorded.address)).toBe(before);
  });

  it('learns a migrated signer`s public key from its sealed key when that key is its address`s', async () => {
    const sealed = newAccount();
    const signerId = await importSigner(sealed);
    // As migration 0032 left an account's signer of before: generated, its public key unknown.
    await sql(`update "signers" set "type" = 'generated', "public_key" = null where "id" = ?`, [signerId]);
    await fundFromDevWallet(inject('neoRpcUrl'), inject('devWallet'), sealed.address, 10n ** 8n);
    const runId = await firedRunOf(signerId, sealed.address, newAccount().address, '1');
    expect(await prepareContractRun(deps(), runId)).toBe('sent');
    const [row] = await sql(`select "public_key" from "signers" where "id" = ?`, [signerId]);
    expect(row).toEqual({ public_key: sealed.publicKey });
    expect(await relayContractRun(deps(), runId, () => undefined)).toBe('success');
  });

  it('ends the run SignerMismatch before pricing when the sealed key is not the recorded address`s', async () => {
    const sealed = newAccount();
    const signerId = await importSigner(sealed);
    const stranger = newAccount();
    await sql(
      `update "signers" set "type" = 'generated', "public_key" = null, "address" = ?, "script_hash" = ? where "id" = ?`,
      [stranger.address, `0x${stranger.scriptHash}`, signerId],
    );
    const runId = await firedRunOf(signerId, stranger.address, newAccount().address, '1');
    expect(await prepareContractRun(deps(), runId, signerAttempts)).toBe('failure');
    expect((await runRow(runId)).error).toEqual({
      name: 'SignerMismatch',
      message: `The signer's key is not that of its address ${stranger.address}.`,
    });
  });
});

describe("a signer's budget", () => {
  it('bounds the spend of all the automations naming the signer on the network, refusing the one past it', async () => {
    const key = newAccount();
    const signerId = await importSigner(key);
    await fundFromDevWallet(inject('neoRpcUrl'), inject('devWallet'), key.address, 10n ** 8n);
    const first = await firedRunOf(signerId, key.address, newAccount().address, '1');
    const second = await firedRunOf(signerId, key.address, newAccount().address, '1');
    expect(await prepareContractRun(deps(), first)).toBe('sent');
    const { reserved: fee } = await signerSpend(fork(), signerId, 'default');
    // Room for one and a half transfers: the other automation's, alone under any budget of its own, is one too many.
    await sql(`update "signers" set "budget" = ? where "id" = ?`, [
      JSON.stringify({ total: gasText(fee + fee / 2n) }),
      signerId,
    ]);

    expect(await prepareContractRun(deps(), second)).toBe('failure');
    const refused = await runRow(second);
    expect(refused).toMatchObject({ status: 'failure', txRaw: null, error: { name: 'BudgetExceeded' } });
    expect(refused.error!.message).toContain("the signer's budget (its spend on this network) allows");
    expect(await signerSpend(fork(), signerId, 'default')).toEqual({ today: fee, total: fee, reserved: fee });
    expect(await relayContractRun(deps(), first, () => undefined)).toBe('success');
  });
});

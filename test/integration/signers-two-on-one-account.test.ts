import { wallet } from '@cityofzion/neon-js';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { gasText, gasUnits } from '../../src/chain/gas-amount.ts';
import { fundFromDevWallet } from '../../src/stack/dev-funder.ts';
import { automationsClient, gasTransferAction, type Loose } from '../support/automations.ts';
import { issueKey } from '../support/keys.ts';
import { expectWitnessedBy, firedRun, gasOf } from '../support/sent-transaction.ts';
import { apiWithWorkerForThisFile } from '../support/worker.ts';

const running = apiWithWorkerForThisFile();
let client: ReturnType<typeof automationsClient>;
let defaultSigner: Loose;

beforeAll(async () => {
  client = automationsClient(running.api.url, (await issueKey(running.api.database.orm)).key);
  const listed = await client.call('GET', '/signers');
  expect(listed.status).toBe(200);
  defaultSigner = (listed.body.signers as Loose[]).find((signer) => signer.name === 'default')!;
  expect(defaultSigner).toMatchObject({ type: 'generated' });
  await fundFromDevWallet(inject('neoRpcUrl'), inject('devWallet'), defaultSigner.address as string, 10n ** 9n);
});

const newAddress = () => new wallet.Account(wallet.generatePrivateKey()).address;
const amount = '777';

/** A GAS transfer automation from `from`, naming `signer` when given (the account's default otherwise). */
const transferring = (from: string, signer?: string) =>
  client.create({
    name: `from ${from} ${Math.random()}`,
    status: 'inactive',
    trigger: { type: 'schedule', cron: '@yearly' },
    action: { ...gasTransferAction(from, newAddress(), amount), ...(signer ? { signer } : {}) },
  });

/** What a run's transaction paid, in GAS fractions. */
const feesOf = (run: Loose) => BigInt(run.systemFee as string) + BigInt(run.networkFee as string);

/** A signer's spend on the dev chain's network, as GET /v1/signers/{id} shows it. */
async function spendOf(signerId: string) {
  const shown = await client.call('GET', `/signers/${signerId}`);
  expect(shown.status).toBe(200);
  return (shown.body.networks as Loose[]).find((network) => network.name === 'default')!.spend as Loose;
}

/** An imported key made a signer named `name` over the API, with `budget` its own; funded. */
async function importedSigner(name: string, budget?: Record<string, string>) {
  const key = new wallet.Account(wallet.generatePrivateKey());
  const created = await client.call('POST', '/signers', { type: 'import', name, privateKey: key.WIF, budget });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  // The address neon-js derives from the WIF.
  expect(created.body).toMatchObject({ type: 'import', address: key.address, publicKey: key.publicKey });
  await fundFromDevWallet(inject('neoRpcUrl'), inject('devWallet'), key.address, 10n ** 9n);
  return { id: created.body.id as string, key };
}

/** A run that sent, its transaction in a block, witnessed by `publicKey`. */
async function expectSent(run: Loose, publicKey: string) {
  expect(run, JSON.stringify(run.error)).toMatchObject({ status: 'success', vmState: 'HALT' });
  await expectWitnessedBy(run.txHash as string, publicKey);
}

describe('two signers on one account (issue 46)', () => {
  it("each automation sends from its own signer's address, each signer's spend its own; a signer in use is not deleted", async () => {
    const before = await spendOf(defaultSigner.id as string);
    const imported = await importedSigner('imported');
    // The default signer's automation names none; the other names its signer by name.
    const fromDefault = await transferring(defaultSigner.address as string);
    const fromImported = await transferring(imported.key.address, 'imported');
    const [byDefault, byImported] = [
      await firedRun(client.call, fromDefault),
      await firedRun(client.call, fromImported),
    ];
    await expectSent(byDefault, defaultSigner.publicKey as string);
    await expectSent(byImported, imported.key.publicKey);

    const importedFees = gasText(feesOf(byImported));
    expect(await spendOf(imported.id)).toEqual({ today: importedFees, total: importedFees, reserved: '0' });
    const defaultFees = gasText(gasUnits(before.total as string) + feesOf(byDefault));
    expect((await spendOf(defaultSigner.id as string)).total).toBe(defaultFees);

    // Named by an automation: kept, and the automation named.
    const deleting = await client.call('DELETE', `/signers/${imported.id}`);
    expect(deleting.status).toBe(409);
    expect(deleting.body.error).toMatchObject({
      code: expect.stringMatching(/^signer_in_use$/i),
      details: { automations: [fromImported] },
    });
    expect((await client.call('GET', `/signers/${imported.id}`)).status).toBe(200);
  }, 120_000);

  it("a signer's own budget bounds its spend, and not the other signer's", async () => {
    // What one transfer costs, learned from the default signer's.
    const fromDefault = await transferring(defaultSigner.address as string);
    const priced = await firedRun(client.call, fromDefault);
    await expectSent(priced, defaultSigner.publicKey as string);
    const fee = feesOf(priced);

    // Room for one such transfer, not two.
    const budgeted = await importedSigner('budgeted', { total: gasText(fee + fee / 2n) });
    const fromBudgeted = await transferring(budgeted.key.address, budgeted.id);
    await expectSent(await firedRun(client.call, fromBudgeted), budgeted.key.publicKey);
    const balance = await gasOf(budgeted.key.address);
    const refused = await firedRun(client.call, fromBudgeted);
    expect(refused).toMatchObject({ status: 'failure', error: { name: 'BudgetExceeded' } });
    expect(refused.txHash ?? null).toBeNull();
    expect(await gasOf(budgeted.key.address)).toBe(balance);

    // The default signer, under the account's budget (none), still sends.
    await expectSent(await firedRun(client.call, fromDefault), defaultSigner.publicKey as string);
  }, 120_000);
});

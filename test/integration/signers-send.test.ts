import { wallet } from '@cityofzion/neon-js';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createNeoRpc } from '../../src/chain/rpc.ts';
import { gasText, gasUnits } from '../../src/chain/gas-amount.ts';
import { fundFromDevWallet } from '../../src/stack/dev-funder.ts';
import type { TestApi } from '../support/api.ts';
import { automationsClient, gasTransferAction, settled, type Loose } from '../support/automations.ts';
import { issueKey } from '../support/keys.ts';
import { until } from '../support/polling.ts';
import { startApiWithWorker, type RunningWorker } from '../support/worker.ts';

// Issue 46 over HTTP, on the worker: an automation sends from the signer it names.
let api: TestApi;
let worker: RunningWorker;
let client: ReturnType<typeof automationsClient>;
let defaultAddress: string;
beforeAll(async () => {
  ({ api, worker } = await startApiWithWorker());
  const issued = await issueKey(api.database.orm);
  defaultAddress = issued.signer.address;
  client = automationsClient(api.url, issued.key);
});
afterAll(async () => {
  await worker?.stop();
  await api?.close();
});

const neo = () => createNeoRpc(inject('neoRpcUrl'));
const gasOf = async (address: string) => BigInt((await neo().getBalance(address, 'GAS')).amount);

/** Imports `key` as signer `name` over the API, funded with 1 GAS; answers the signer as created. */
async function importedSigner(name: string, key: InstanceType<typeof wallet.Account>): Promise<Loose> {
  const created = await client.call('POST', '/signers', { name, type: 'import', privateKey: key.WIF });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  await fundFromDevWallet(inject('neoRpcUrl'), inject('devWallet'), key.address, 10n ** 8n);
  return created.body;
}

/** Fires `automationId` by hand and answers its run once ended. */
async function firedRun(automationId: string): Promise<Loose> {
  const fired = await client.call('POST', `/automations/${automationId}/trigger`);
  expect(fired.status).toBe(202);
  const runs = await until(
    () => client.runs(automationId),
    (listed) => listed.length > 0 && settled(listed),
    60_000,
  );
  return runs[0]!;
}

describe('an automation naming an imported signer', () => {
  it('moves GAS from the address neon-js derives from the WIF, and counts its fees against that signer', async () => {
    const key = new wallet.Account(wallet.generatePrivateKey());
    const signer = await importedSigner('operator', key);
    expect(signer.address).toBe(key.address);
    const recipient = new wallet.Account(wallet.generatePrivateKey()).address;
    const automationId = await client.create({
      name: 'pays from the operator',
      status: 'inactive',
      trigger: { type: 'schedule', cron: '@yearly' },
      action: { ...gasTransferAction(key.address, recipient, '2468'), signer: 'operator' },
    });
    const [before, defaultBefore] = [await gasOf(key.address), await gasOf(defaultAddress)];

    const run = await firedRun(automationId);
    expect(run).toMatchObject({ status: 'success', vmState: 'HALT' });
    const fees = BigInt(run.systemFee as string) + BigInt(run.networkFee as string);
    expect(await gasOf(recipient)).toBe(2468n);
    expect(before - (await gasOf(key.address))).toBe(2468n + fees);
    expect(await gasOf(defaultAddress)).toBe(defaultBefore);

    const shown = (await client.call('GET', `/signers/${signer.id as string}`)).body;
    expect(shown.networks[0].spend).toEqual({ today: gasText(fees), total: gasText(fees), reserved: '0' });
  });
});

describe('two signers on one account', () => {
  it('send each from its own address, each spend counted against its own signer', async () => {
    const key = new wallet.Account(wallet.generatePrivateKey());
    const second = await importedSigner('second', key);
    await fundFromDevWallet(inject('neoRpcUrl'), inject('devWallet'), defaultAddress, 10n ** 8n);
    const [toDefault, toSecond] = [0, 1].map(() => new wallet.Account(wallet.generatePrivateKey()).address);
    const automation = (name: string, action: object) =>
      client.create({ name, status: 'inactive', trigger: { type: 'schedule', cron: '@yearly' }, action });
    const byDefault = await automation('by default', gasTransferAction(defaultAddress, toDefault!, '11'));
    const bySecond = await automation('by second', {
      ...gasTransferAction(key.address, toSecond!, '22'),
      signer: 'second',
    });
    const signers = (await client.call('GET', '/signers')).body.signers as Loose[];
    const defaultSigner = signers.find((signer) => signer.name === 'default')!;
    const spendOf = async (id: string) =>
      (await client.call('GET', `/signers/${id}`)).body.networks[0].spend.total as string;
    const [defaultSpent, secondSpent] = [await spendOf(defaultSigner.id as string), await spendOf(second.id as string)];

    const [ranDefault, ranSecond] = [await firedRun(byDefault), await firedRun(bySecond)];
    expect([ranDefault.status, ranSecond.status]).toEqual(['success', 'success']);
    expect([await gasOf(toDefault!), await gasOf(toSecond!)]).toEqual([11n, 22n]);
    const feesOf = (run: Loose) => BigInt(run.systemFee as string) + BigInt(run.networkFee as string);
    const grew = async (id: string, before: string) => gasUnits(await spendOf(id)) - gasUnits(before);
    expect(await grew(defaultSigner.id as string, defaultSpent)).toBe(feesOf(ranDefault));
    expect(await grew(second.id as string, secondSpent)).toBe(feesOf(ranSecond));
  });
});

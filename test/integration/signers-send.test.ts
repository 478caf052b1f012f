import { wallet } from '@cityofzion/neon-js';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createNeoRpc } from '../../src/chain/rpc.ts';
import { gasText, gasUnits } from '../../src/chain/gas-amount.ts';
import { fundFromDevWallet } from '../../src/stack/dev-funder.ts';
import type { TestApi } from '../support/api.ts';
import { automationsClient, gasTransferAction, settled, type Loose } from '../support/automations.ts';
import { captureOutput, databaseDump, decodedHistoryText } from '../support/canary.ts';
import { issueKey } from '../support/keys.ts';
import { until } from '../support/polling.ts';
import { startApiWithWorker, type RunningWorker } from '../support/worker.ts';

// Issue 46 over HTTP, on the worker: an automation sends from the signer it names.
let api: TestApi;
let worker: RunningWorker;
let client: ReturnType<typeof automationsClient>;
let defaultAddress: string;
let taskQueue: string;
const output: string[] = [];
let restoreOutput: () => void;
beforeAll(async () => {
  restoreOutput = captureOutput(output);
  ({ api, worker, taskQueue } = await startApiWithWorker());
  const issued = await issueKey(api.database.orm);
  defaultAddress = issued.signer.address;
  client = automationsClient(api.url, issued.key);
});
afterAll(async () => {
  restoreOutput();
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

describe('an imported key afterwards', () => {
  it('is in no API answer, log line, opened Temporal payload or database row, as WIF or hex', async () => {
    const key = new wallet.Account(wallet.generatePrivateKey());
    const created = await client.call('POST', '/signers', {
      name: 'canary',
      type: 'import',
      privateKey: `0x${key.privateKey}`,
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    await fundFromDevWallet(inject('neoRpcUrl'), inject('devWallet'), key.address, 10n ** 8n);
    const recipient = new wallet.Account(wallet.generatePrivateKey()).address;
    const automationId = await client.create({
      name: 'signs with the canary',
      status: 'inactive',
      trigger: { type: 'schedule', cron: '@yearly' },
      action: { ...gasTransferAction(key.address, recipient, '7'), signer: 'canary' },
    });
    expect(await firedRun(automationId)).toMatchObject({ status: 'success', vmState: 'HALT' });

    const answers = [created.body];
    for (const path of [
      '/signers',
      `/signers/${created.body.id as string}`,
      '/account',
      `/automations/${automationId}`,
    ])
      answers.push((await client.call('GET', path)).body);
    answers.push(await client.runs(automationId));
    // Listed once visible: the run's own workflow (its input names the automation) among them.
    const histories = await until(
      async () => {
        const texts: string[] = [];
        for await (const workflow of api.services.temporal.client.workflow.list({
          query: `TaskQueue = "${taskQueue}"`,
        }))
          texts.push(await decodedHistoryText(api, workflow.workflowId));
        return texts;
      },
      (texts) => texts.join('\n').includes(automationId),
      20_000,
    );

    const forms = [key.WIF, key.privateKey, key.privateKey.toUpperCase()];
    const places = {
      answers: JSON.stringify(answers),
      output: output.join(''),
      histories: histories.join('\n'),
      rows: await databaseDump(api),
    };
    for (const [place, text] of Object.entries(places))
      for (const form of forms) expect(text.includes(form), `${place} holds the key`).toBe(false);
  });
});

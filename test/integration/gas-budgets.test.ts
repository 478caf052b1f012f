import { sc, wallet } from '@cityofzion/neon-js';
import { keySender } from '../../src/chain/transaction.ts';
import { localSigningKey } from '../../src/signers/local-key.ts';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { openSigner } from '../../src/signers/default-signer.ts';
import { Automation } from '../../src/automations/model/automation.entity.ts';
import { prepareContractRun, relayContractRun, type ChainDeps } from '../../src/automations/actions/contract-steps.ts';
import { accountSpend, automationSpend } from '../../src/automations/budget/gas-spend.ts';
import { Notification } from '../../src/automations/notifications/notification.entity.ts';
import { AutomationRun } from '../../src/automations/model/run.entity.ts';
import { recordRuns } from '../../src/automations/runs/fires.ts';
import { toContractParam } from '../../src/chain/contract-args.ts';
import { priceContractCall } from '../../src/chain/contract-call.ts';
import { gasText } from '../../src/chain/gas-amount.ts';
import { createNeoRpc } from '../../src/chain/rpc.ts';
import { fundFromDevWallet } from '../../src/stack/dev-funder.ts';
import type { TestApi } from '../support/api.ts';
import { startTestApi } from '../support/api.ts';
import { automationsClient, gasHash, gasTransferAction } from '../support/automations.ts';
import { issueKey, testMasters } from '../support/keys.ts';

let api: TestApi;
let client: ReturnType<typeof automationsClient>;
let accountId: string;
let signerAddress: string;
/** A recipient that holds GAS already: each transfer to it costs the same (no storage entry made). */
let recipient: string;
const startBalance = 10n ** 9n;
beforeAll(async () => {
  api = await startTestApi();
  const issued = await issueKey(api.database.orm);
  ({ accountId } = issued);
  signerAddress = issued.signer.address;
  client = automationsClient(api.url, issued.key);
  recipient = new wallet.Account(wallet.generatePrivateKey()).address;
  await fundFromDevWallet(inject('neoRpcUrl'), inject('devWallet'), recipient, 1n);
  await fundFromDevWallet(inject('neoRpcUrl'), inject('devWallet'), signerAddress, startBalance);
});
afterAll(async () => {
  await api?.close();
});

const neo = () => createNeoRpc(inject('neoRpcUrl'));
const fork = () => api.database.orm.em.fork();
const deps = (): ChainDeps => ({ em: fork(), networks: new Map([['default', neo()]]), masterKeys: testMasters });
const gasOf = async (address: string) => BigInt((await neo().getBalance(address, 'GAS')).amount);
const runRow = (runId: string) => fork().findOneOrFail(AutomationRun, { id: runId }, { populate: ['txRaw'] });
const transfer = () => gasTransferAction(signerAddress, recipient, '1');

/** What prepare reserves for one transfer now: its system fee plus its network fee, as the node prices them. */
async function feeOfTransfer(): Promise<bigint> {
  const key = new wallet.Account(await openSigner(fork(), testMasters, accountId));
  const sender = keySender(localSigningKey(key.privateKey));
  const action = transfer();
  const script = sc.createScript({
    scriptHash: action.scriptHash.slice(2),
    operation: action.operation,
    args: action.args.map((arg) => toContractParam(arg as Parameters<typeof toContractParam>[0])),
  });
  const priced = await priceContractCall(neo(), script, sender);
  if ('fault' in priced) throw new Error(priced.fault);
  return priced.fee;
}

let fires = 0;
/** A contract automation made over the API (active, firing yearly), with `budget`. */
const transferAutomation = (budget?: Record<string, string>, notify: unknown[] = []) =>
  client.create({
    name: `budgeted ${++fires}`,
    trigger: { type: 'schedule', cron: '@yearly' },
    action: transfer(),
    notify,
    ...(budget ? { budget } : {}),
  });

/** A rule telling the automation's `error` to a webhook (never delivered here: no worker runs). */
const toldOfErrors = {
  on: ['error'],
  channel: { type: 'webhook', url: 'https://example.com/hook', signingSecret: 'HOOK' },
};

/** Runs of `automationId` fired and not begun, as a fire records them. */
async function fire(automationId: string, count = 1): Promise<string[]> {
  const em = fork();
  const automation = await em.findOneOrFail(Automation, { id: automationId });
  const firings = Array.from({ length: count }, () => ({
    automation,
    fireKey: `manual:${++fires}`,
    payload: { type: 'manual' as const },
  }));
  return (await recordRuns(em, firings)).map((run) => run.runId);
}

const getAutomation = async (id: string) => (await client.call('GET', `/automations/${id}`)).body;
/** Landed runs' fees as the chain has them. */
async function chainFees(runIds: string[]) {
  let sum = 0n;
  for (const runId of runIds) {
    const run = await runRow(runId);
    const onChain = await neo().getTransaction(run.txHash!);
    expect(BigInt(run.systemFee!) + BigInt(run.networkFee!)).toBe(BigInt(onChain.sysfee) + BigInt(onChain.netfee));
    sum += BigInt(onChain.sysfee) + BigInt(onChain.netfee);
  }
  return sum;
}

const landed: string[] = [];
/** Prepares and relays a run that fits its budget: it lands. */
async function send(runId: string) {
  expect(await prepareContractRun(deps(), runId)).toBe('sent');
  expect(await relayContractRun(deps(), runId, () => undefined)).toBe('success');
  landed.push(runId);
}

describe('GAS budgets', () => {
  it('takes a budget on a contract action or a function that sends, refusing it elsewhere and an empty or zero one', async () => {
    const webhook = { type: 'webhook', url: 'https://example.com/hook', signingSecret: 'hook_secret' };
    const refused = await client.call('POST', '/automations', {
      name: 'webhook with a budget',
      trigger: { type: 'schedule', cron: '@yearly' },
      action: webhook,
      budget: { perRun: '1' },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ code: 'INVALID_REQUEST', details: { field: 'budget' } });
    const functionId = await client.deploy('module.exports = async () => ({ skip: "nothing to do" });');
    const sending = await client.call('POST', '/automations', {
      name: 'a function that sends, with a budget',
      trigger: { type: 'schedule', cron: '@yearly' },
      action: { type: 'function', functionId, execute: { allowedContracts: [gasHash] } },
      budget: { perDay: '1' },
    });
    expect(sending.status, JSON.stringify(sending.body)).toBe(201);
    expect((await getAutomation(sending.body.id as string)).gas).toMatchObject({ budget: { perDay: '1' } });
    for (const budget of [{}, { perDay: '0' }, { total: '-1' }, { perRun: '1.123456789' }]) {
      const wrong = await client.call('POST', '/automations', {
        name: 'wrong budget',
        trigger: { type: 'schedule', cron: '@yearly' },
        action: transfer(),
        budget,
      });
      expect(wrong.status, JSON.stringify(budget)).toBe(400);
    }
    const automationId = await transferAutomation();
    const set = await client.call('PATCH', `/automations/${automationId}`, { budget: { perDay: '1.5' } });
    expect(set.body.budget).toEqual({ perDay: '1.5' });
    const cleared = await client.call('PATCH', `/automations/${automationId}`, { budget: null });
    expect(cleared.status).toBe(200);
    expect(cleared.body).not.toHaveProperty('budget');
  });

  it('fails a run whose fee is over perRun with BudgetExceeded and its figures, signing nothing', async () => {
    const fee = await feeOfTransfer();
    const automationId = await transferAutomation({ perRun: gasText(fee - 1n) });
    const [runId] = await fire(automationId);
    expect(await prepareContractRun(deps(), runId!)).toBe('failure');
    const run = await runRow(runId!);
    expect(run).toMatchObject({ status: 'failure', txHash: null, txRaw: null });
    expect(run.error).toEqual({
      name: 'BudgetExceeded',
      message:
        `The transaction would cost ${gasText(fee)} GAS (system fee plus network fee); ` +
        `the automation's budget allows ${gasText(fee - 1n)} GAS per run.`,
    });
    // One run's fee says nothing of the next: the automation stays active.
    const after = await getAutomation(automationId);
    expect(after).toMatchObject({ status: 'active', budget: { perRun: gasText(fee - 1n) } });
    expect(after.gas).toMatchObject({ budgetFrom: 'automation', spentToday: '0', spentTotal: '0', reserved: '0' });
  });

  it('stops the third run of a day whose perDay allows two, and moves the automation to error', async () => {
    const fee = await feeOfTransfer();
    const perDay = gasText(fee * 2n + fee / 2n);
    expect((await client.call('POST', '/secrets', { name: 'HOOK', value: 'shared' })).status).toBe(201);
    const automationId = await transferAutomation({ perDay }, [toldOfErrors]);
    const [first, second, third] = await fire(automationId, 3);
    await send(first!);
    const halfway = await getAutomation(automationId);
    expect(halfway.gas).toEqual({
      budget: { perDay },
      budgetFrom: 'automation',
      spentToday: gasText(fee),
      spentTotal: gasText(fee),
      reserved: '0',
      leftToday: gasText(fee + fee / 2n),
      leftTotal: null,
    });
    await send(second!);

    expect(await prepareContractRun(deps(), third!)).toBe('failure');
    expect(await runRow(third!)).toMatchObject({ txHash: null, error: { name: 'BudgetExceeded' } });
    expect((await runRow(third!)).error!.message).toContain(`${gasText(fee * 2n)} GAS is spent or reserved`);
    const stopped = await getAutomation(automationId);
    expect(stopped).toMatchObject({
      status: 'error',
      details: { reason: 'budget_exhausted', message: (await runRow(third!)).error!.message },
    });
    expect(stopped.gas).toMatchObject({ spentToday: gasText(fee * 2n), leftToday: gasText(fee / 2n) });
    // Told by its rules, as any move to error.
    const told = await fork().find(Notification, { automation: automationId });
    expect(told.map(({ event, message }) => ({ event, reason: message.reason }))).toEqual([
      { event: 'error', reason: stopped.details.message },
    ]);
  });

  it('sends at most ten of twenty runs prepared at once against a total for ten', async () => {
    const fee = await feeOfTransfer();
    const automationId = await transferAutomation({ total: gasText(fee * 10n) });
    const runIds = await fire(automationId, 20);
    const prepared = await Promise.all(runIds.map((runId) => prepareContractRun(deps(), runId)));
    expect(prepared.filter((status) => status === 'sent')).toHaveLength(10);
    expect(prepared.filter((status) => status === 'failure')).toHaveLength(10);
    const sent = runIds.filter((_, index) => prepared[index] === 'sent');
    for (const runId of runIds.filter((id) => !sent.includes(id))) {
      expect(await runRow(runId)).toMatchObject({ txHash: null, error: { name: 'BudgetExceeded' } });
    }
    const reserved = await getAutomation(automationId);
    expect(reserved.gas).toMatchObject({ reserved: gasText(fee * 10n), leftTotal: '0' });
    expect(reserved.status).toBe('error');

    await Promise.all(
      sent.map(async (runId) => {
        expect(await relayContractRun(deps(), runId, () => undefined)).toBe('success');
        landed.push(runId);
      }),
    );
    expect(await automationSpend(fork(), automationId)).toEqual({
      today: await chainFees(sent),
      total: await chainFees(sent),
      reserved: 0n,
    });
  });

  it("holds automations without a budget to the account's default, and shows the account's spend and balance as the chain has them", async () => {
    const fee = await feeOfTransfer();
    const patched = await client.call('PATCH', '/account', { budget: { perRun: gasText(fee - 1n) } });
    expect(patched.status).toBe(200);
    expect(patched.body.budget).toEqual({ perRun: gasText(fee - 1n) });
    const automationId = await transferAutomation();
    const [refused] = await fire(automationId);
    expect(await prepareContractRun(deps(), refused!)).toBe('failure');
    expect((await runRow(refused!)).error!.message).toContain("the account's default budget allows");
    expect((await getAutomation(automationId)).gas).toMatchObject({ budgetFrom: 'account', leftTotal: null });

    expect((await client.call('PATCH', '/account', { budget: null })).body.budget).toBeNull();
    const [allowed] = await fire(automationId);
    await send(allowed!);

    const account = (await client.call('GET', '/account')).body;
    const spent = await chainFees(landed);
    expect(account.spend).toEqual({ today: gasText(spent), total: gasText(spent), reserved: '0' });
    const balance = await gasOf(signerAddress);
    expect(account.signer.gasBalance).toBe(gasText(balance));
    // What the signer paid: the fees of its landed runs, and 1 fraction each run sent.
    expect(startBalance - balance).toBe(spent + BigInt(landed.length));
    expect(await accountSpend(fork(), accountId, 'default')).toEqual({ today: spent, total: spent, reserved: 0n });
  });

  it('releases the reservation of a transaction the node refuses: its budget has the room again', async () => {
    const unfunded = await issueKey(api.database.orm);
    const poor = automationsClient(api.url, unfunded.key);
    const action = gasTransferAction(unfunded.signer.address, recipient, '1');
    const automationId = await poor.create({
      name: 'unfunded',
      trigger: { type: 'schedule', cron: '@yearly' },
      action,
      budget: { total: '0.5' },
    });
    const [runId] = await fire(automationId);
    expect(await prepareContractRun(deps(), runId!)).toBe('sent');
    const reserved = (await poor.call('GET', `/automations/${automationId}`)).body.gas;
    expect(reserved.reserved).not.toBe('0');
    expect(reserved.spentTotal).toBe(reserved.reserved);

    expect(await relayContractRun(deps(), runId!, () => undefined)).toBe('failure');
    expect((await runRow(runId!)).error).toMatchObject({ name: 'TransactionRejected' });
    const released = (await poor.call('GET', `/automations/${automationId}`)).body.gas;
    expect(released).toMatchObject({ spentToday: '0', spentTotal: '0', reserved: '0', leftTotal: '0.5' });
    expect((await poor.call('GET', '/account')).body.spend).toEqual({ today: '0', total: '0', reserved: '0' });
  });
});

describe('GET /v1/account while the Neo node does not answer', () => {
  it('answers in time, without the signer`s balance', async () => {
    const offline = await startTestApi([], { NEO_RPC_URL: 'http://127.0.0.1:9' });
    try {
      const issued = await issueKey(offline.database.orm);
      const account = await automationsClient(offline.url, issued.key).call('GET', '/account');
      expect(account.status).toBe(200);
      expect(account.body.signer).toEqual({ ...issued.signer, gasBalance: null });
      expect(account.body.spend).toEqual({ today: '0', total: '0', reserved: '0' });
    } finally {
      await offline.close();
    }
  });
});

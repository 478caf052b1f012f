import { wallet } from '@cityofzion/neon-js';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createNeoRpc } from '../../src/chain/rpc.ts';
import { fundFromDevWallet } from '../../src/stack/dev-funder.ts';
import {
  call,
  create,
  deploy,
  gas,
  settledRuns,
  startAutomationsApi,
  stopAutomationsApi,
} from '../support/automations-api.ts';
import { gasTransferCall } from '../support/automations.ts';
import { until } from '../support/polling.ts';

// Function actions that send: the function's result decides the calls, sent as one transaction.
let signer: string;
beforeAll(async () => {
  await startAutomationsApi();
  signer = (await call('GET', '/account')).body.signer.address as string;
  await fundFromDevWallet(inject('neoRpcUrl'), inject('devWallet'), signer, 10n ** 9n);
});
afterAll(stopAutomationsApi);

const neo = () => createNeoRpc(inject('neoRpcUrl'));
const newAddress = () => new wallet.Account(wallet.generatePrivateKey()).address;
const balance = async (address: string) => (await neo().getBalance(address, 'GAS')).amount;
const neoHash = '0xef4073a0f2b305a38ec4050e4d3d28bc40ea63f5';

/** The function's code: it returns what `params.decision` holds, so that each test decides its own. */
let decider: string;
beforeAll(async () => {
  decider = await deploy('module.exports = async (context) => context.params.decision;');
});

const transfer = (to: string, amount: string) => gasTransferCall(signer, to, amount);

/** Runs once, by hand, an automation whose function decides `decision`; answers its settled run. */
async function runDeciding(
  decision: unknown,
  execute: Record<string, unknown> = { allowedContracts: [gas] },
): Promise<Record<string, any>> {
  const action = { type: 'function', functionId: decider, parameters: { decision }, execute };
  const automation = await create({ action });
  expect(automation.action).toMatchObject({ execute: { maxCalls: 4, ...execute } });
  expect((await call('POST', `/automations/${automation.id as string}/trigger`)).status).toBe(202);
  const runs: Record<string, any>[] = await settledRuns(automation.id as string, 1);
  expect(runs).toHaveLength(1);
  return runs[0]!;
}

describe('a function action that sends', () => {
  it('sends the two GAS transfers its function decides in one transaction: both recipients paid, one txHash, one run', async () => {
    const [first, second] = [newAddress(), newAddress()];
    const calls = [transfer(first, '1234'), transfer(second, '5678')];
    const run = await runDeciding({ calls });
    expect(run).toMatchObject({
      status: 'success',
      calls,
      executionId: expect.stringMatching(/^exec_/),
      txHash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
      vmState: 'HALT',
      gasConsumed: expect.stringMatching(/^\d+$/),
      error: null,
    });
    expect(await balance(first)).toBe('1234');
    expect(await balance(second)).toBe('5678');
    // One transaction made both: its log holds both transfers.
    const log = await neo().getApplicationLog(run.txHash as string);
    const transfers = log.executions.flatMap(
      (execution) => (execution as { notifications?: { eventname: string }[] }).notifications ?? [],
    );
    expect(transfers.map((notification) => notification.eventname)).toEqual(['Transfer', 'Transfer']);
  });

  it("reads Gelato's {canExec: true, calls} as calls", async () => {
    const recipient = newAddress();
    const run = await runDeciding({ canExec: true, calls: [transfer(recipient, '42')] });
    expect(run).toMatchObject({ status: 'success', vmState: 'HALT' });
    expect(await balance(recipient)).toBe('42');
  });

  it.each([
    [
      'a call to a contract outside allowedContracts',
      (to: string) => ({ calls: [transfer(to, '1'), { ...transfer(to, '1'), scriptHash: neoHash }] }),
      { allowedContracts: [gas] },
      /^calls\[1\]\.scriptHash 0xef40.* is not one of the action's allowedContracts/,
    ],
    [
      'more calls than maxCalls',
      (to: string) => ({ calls: [transfer(to, '1'), transfer(to, '2'), transfer(to, '3')] }),
      { allowedContracts: [gas], maxCalls: 2 },
      /3 calls, more than the action's maxCalls \(2\)/,
    ],
    [
      "Gelato's EVM callData",
      (to: string) => ({ canExec: true, callData: [{ to, data: '0x' }] }),
      { allowedContracts: [gas] },
      /callData/,
    ],
  ])('fails a run deciding %s with InvalidDecision, and sends nothing', async (_name, decide, execute, message) => {
    const recipient = newAddress();
    const run = await runDeciding(decide(recipient), execute);
    expect(run).toMatchObject({ status: 'failure', error: { name: 'InvalidDecision', message } });
    expect(run.txHash ?? null).toBeNull();
    expect(await balance(recipient)).toBe('0');
  });

  it('fails a run whose decided argument names what the trigger lacks with TemplateError, and sends nothing', async () => {
    const recipient = newAddress();
    const call = transfer(recipient, '1');
    call.args[2] = { type: 'Integer', value: '{{trigger.state.amount}}' };
    const run = await runDeciding({ calls: [call] });
    expect(run).toMatchObject({ status: 'failure', error: { name: 'TemplateError' } });
    expect(run.txHash ?? null).toBeNull();
    expect(await balance(recipient)).toBe('0');
  });

  it.each([
    ['{skip}', { skip: 'nothing to top up' }, 'nothing to top up'],
    ['{canExec: false, message}', { canExec: false, message: 'Time not elapsed' }, 'Time not elapsed'],
  ])('ends a run deciding %s as a success that sent nothing, its reason recorded', async (_name, decision, reason) => {
    const run = await runDeciding(decision);
    expect(run).toMatchObject({ status: 'success', skipped: reason, error: null });
    expect(run.txHash ?? null).toBeNull();
  });

  it('holds the decided calls to the budget: a perRun below their fee fails BudgetExceeded, and nothing is signed', async () => {
    const recipient = newAddress();
    const action = {
      type: 'function',
      functionId: decider,
      parameters: { decision: { calls: [transfer(recipient, '1')] } },
      execute: { allowedContracts: [gas] },
    };
    const automation = await create({ action, budget: { perRun: '0.00000001' } });
    expect((await call('POST', `/automations/${automation.id as string}/trigger`)).status).toBe(202);
    const [run] = await settledRuns(automation.id as string, 1);
    expect(run).toMatchObject({ status: 'failure', error: { name: 'BudgetExceeded' } });
    expect(run.txHash ?? null).toBeNull();
    expect(await balance(recipient)).toBe('0');
  });

  it("checks the signer's GAS after a run, as after a contract action's: low_gas told under the threshold", async () => {
    const action = {
      type: 'function',
      functionId: decider,
      parameters: { decision: { calls: [transfer(newAddress(), '1')] } },
      execute: { allowedContracts: [gas] },
    };
    const channel = { type: 'slack', url: 'https://hooks.slack.test/services/x' };
    const automation = await create({ action, notify: [{ on: ['low_gas'], belowGas: '1000000000', channel }] });
    const id = automation.id as string;
    expect((await call('POST', `/automations/${id}/trigger`)).status).toBe(202);
    const [run] = await settledRuns(id, 1);
    expect(run).toMatchObject({ status: 'success', vmState: 'HALT' });
    const told = await until(
      async () => (await call('GET', `/automations/${id}/runs/${run.id as string}`)).body.notifications as unknown[],
      (notifications) => notifications.length > 0,
    );
    expect(told).toEqual([expect.objectContaining({ event: 'low_gas' })]);
  });

  it('fails a run whose function throws as a function run fails, deciding and sending nothing', async () => {
    const thrower = await deploy("module.exports = async () => { throw new RangeError('no'); };");
    const action = { type: 'function', functionId: thrower, execute: { allowedContracts: [gas] } };
    const automation = await create({ action });
    expect((await call('POST', `/automations/${automation.id as string}/trigger`)).status).toBe(202);
    const [run] = await settledRuns(automation.id as string, 1);
    expect(run).toMatchObject({ status: 'failure', error: { name: 'RangeError', message: 'no' } });
    expect(run.txHash ?? null).toBeNull();
  });
});

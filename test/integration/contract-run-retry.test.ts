import { wallet } from '@cityofzion/neon-js';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Automation } from '../../src/automations/model/automation.entity.ts';
import { prepareContractRun } from '../../src/automations/actions/contract-steps.ts';
import { failRun } from '../../src/automations/runs/run-steps.ts';
import { AutomationRun } from '../../src/automations/model/run.entity.ts';
import { recordRuns } from '../../src/automations/runs/fires.ts';
import { relayUntilFinal } from '../../src/chain/contract-call.ts';
import { createNeoRpc, type NeoRpc } from '../../src/chain/rpc.ts';
import { fundFromDevWallet } from '../../src/stack/dev-funder.ts';
import type { TestApi } from '../support/api.ts';
import { automationsClient, gasTransferAction, type Loose } from '../support/automations.ts';
import { issueKey, testMasters } from '../support/keys.ts';
import { until } from '../support/polling.ts';
import { startApiWithWorker, type RunningWorker } from '../support/worker.ts';

let api: TestApi;
let worker: RunningWorker;
let client: ReturnType<typeof automationsClient>;
let apiKey: string;
let signerAddress: string;
beforeAll(async () => {
  ({ api, worker } = await startApiWithWorker());
  const issued = await issueKey(api.database.orm);
  apiKey = issued.key;
  signerAddress = issued.signer.address;
  client = automationsClient(api.url, issued.key);
  await fundFromDevWallet(inject('neoRpcUrl'), inject('devWallet'), signerAddress, 10n ** 9n);
});
afterAll(async () => {
  await worker?.stop();
  await api?.close();
});

const neo = () => createNeoRpc(inject('neoRpcUrl'));
const fork = () => api.database.orm.em.fork();
const gasOf = async (address: string) => BigInt((await neo().getBalance(address, 'GAS')).amount);

/**
 * The test's node, its height read `blocks` lower: a transaction priced through it is valid until
 * that many blocks sooner than a run's (100 blocks ahead, src/chain/transaction.ts), signed so and
 * stored so, and the chain proves it expired that much sooner.
 */
const nodeBehindBy = (blocks: number): NeoRpc => {
  const node = neo();
  return { ...node, getBlockCount: async (signal) => (await node.getBlockCount(signal)) - blocks };
};

/**
 * A run of a new GAS transfer automation that failed while holding its signed transaction, unsent:
 * what an older version recorded for a run cancelled by an operator between its prepare and its
 * relay (a run holding a transaction is no longer ended but from the chain's answer).
 */
async function failedHoldingTransaction(recipient: string, amount: string, node: NeoRpc = neo()) {
  const automationId = await client.create({
    name: `retry ${recipient}`,
    status: 'inactive',
    trigger: { type: 'schedule', cron: '@yearly' },
    action: gasTransferAction(signerAddress, recipient, amount),
  });
  const em = fork();
  const automation = await em.findOneOrFail(Automation, { id: automationId });
  const [fired] = await recordRuns(em, [{ automation, fireKey: 'manual:held', payload: { type: 'manual' } }]);
  const runId = fired!.runId;
  expect(
    await prepareContractRun({ em: fork(), networks: new Map([['default', node]]), masterKeys: testMasters }, runId),
  ).toBe('sent');
  await fork()
    .getConnection()
    .execute(
      `update "automation_runs" set "status" = 'failure', "completed_at" = now(),
      "error" = '{"name":"ActionError","message":"The workflow was cancelled."}'
    where "id" = ?`,
      [runId],
    );
  const run = await fork().findOneOrFail(AutomationRun, { id: runId }, { populate: ['txRaw'] });
  expect(run.status).toBe('failure');
  return { automationId, run };
}

/** A retry under `idempotencyKey`, when given. */
async function retry(automationId: string, runId: string, idempotencyKey?: string) {
  const response = await fetch(`${api.url}/v1/automations/${automationId}/runs/${runId}/retry`, {
    method: 'POST',
    headers: { 'X-API-Key': apiKey, ...(idempotencyKey ? { 'Idempotency-Key': idempotencyKey } : {}) },
  });
  return { status: response.status, body: (await response.json()) as Loose };
}

describe('ending a contract run that holds its signed transaction', () => {
  it('is not done by the last word of an action that could not finish (cancelled): the run stays running', async () => {
    const recipient = new wallet.Account(wallet.generatePrivateKey()).address;
    const automationId = await client.create({
      name: `held ${recipient}`,
      status: 'inactive',
      trigger: { type: 'schedule', cron: '@yearly' },
      action: gasTransferAction(signerAddress, recipient, '7'),
    });
    const em = fork();
    const automation = await em.findOneOrFail(Automation, { id: automationId });
    const [fired] = await recordRuns(em, [{ automation, fireKey: 'manual:kept', payload: { type: 'manual' } }]);
    const runId = fired!.runId;
    expect(
      await prepareContractRun({ em: fork(), networks: new Map([['default', neo()]]), masterKeys: testMasters }, runId),
    ).toBe('sent');

    expect(await failRun(fork(), runId, 'The run was cancelled.')).toBe('running');
    expect(await fork().findOneOrFail(AutomationRun, { id: runId })).toMatchObject({ status: 'running', error: null });
  });
});

describe('retrying a contract run', () => {
  it('is refused while the failed run`s transaction may still land, and allowed once the chain proves it expired', async () => {
    const recipient = new wallet.Account(wallet.generatePrivateKey()).address;
    // Valid for 20 blocks, not 100: still ample to be refused first, and expired 80 blocks sooner.
    const { automationId, run } = await failedHoldingTransaction(recipient, '5555', nodeBehindBy(80));

    // Refused under a key, that keeps nothing: the same key works once the transaction expired.
    const refused = await retry(automationId, run.id, `retry-${run.id}`);
    expect(refused).toEqual({
      status: 409,
      body: {
        error: {
          code: 'TRANSACTION_PENDING',
          message: expect.stringContaining(`up to block ${run.validUntilBlock}`),
          details: { txHash: run.txHash, validUntilBlock: run.validUntilBlock, height: expect.any(Number) },
        },
      },
    });

    // The block at validUntilBlock made without it: no block can include it any more.
    await until(
      () => neo().getBlockCount(),
      (count) => count - 1 >= run.validUntilBlock!,
      200_000,
      1000,
    );
    const retried = await retry(automationId, run.id, `retry-${run.id}`);
    expect(retried.status).toBe(202);
    const retriedRun = await until<Loose>(
      async () => (await client.call('GET', `/automations/${automationId}/runs/${retried.body.run.id}`)).body,
      (body) => body.status !== 'running',
      60_000,
    );
    expect(retriedRun).toMatchObject({ status: 'success', retryOf: run.id, vmState: 'HALT' });
    expect(retriedRun.txHash).not.toBe(run.txHash);
    // Sent once: the first transaction never landed, the retry's did.
    expect(await gasOf(recipient)).toBe(5555n);
  }, 300_000);

  it('is refused when the failed run`s transaction is in a block: the call was made', async () => {
    const recipient = new wallet.Account(wallet.generatePrivateKey()).address;
    const { automationId, run } = await failedHoldingTransaction(recipient, '66');
    // Sent after the run's end was recorded, as a relay cancelled mid-way may have done.
    const call = { hash: run.txHash!, rawTransaction: run.txRaw!, validUntilBlock: run.validUntilBlock! };
    const landed = await relayUntilFinal(neo(), call, { pollMs: 200 });
    expect(landed).toMatchObject({ outcome: 'included' });

    const refused = await retry(automationId, run.id);
    expect(refused).toEqual({
      status: 409,
      body: {
        error: {
          code: 'TRANSACTION_PENDING',
          message: expect.stringContaining('the call was made'),
          details: {
            txHash: run.txHash,
            validUntilBlock: run.validUntilBlock,
            blockHash: (await neo().getTransaction(run.txHash!)).blockhash,
          },
        },
      },
    });
    expect(await gasOf(recipient)).toBe(66n);
  });
});

import { wallet } from '@cityofzion/neon-js';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { prepareContractRun, relayContractRun } from '../../src/automations/actions/contract-steps.ts';
import { endSkipped, failUncalled } from '../../src/automations/actions/run-contract.sql.ts';
import { decideRun } from '../../src/automations/actions/decide-steps.ts';
import { beginRun } from '../../src/automations/runs/run-steps.ts';
import { AutomationRun } from '../../src/automations/model/run.entity.ts';
import { createNeoRpc } from '../../src/chain/rpc.ts';
import { sealResult } from '../../src/functions/result-seal.ts';
import { storeEnd } from '../../src/functions/execution.sql.ts';
import { fundFromDevWallet } from '../../src/stack/dev-funder.ts';
import { gasHash, gasTransferCall } from '../support/automations.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { storeFunction } from '../support/function-rows.ts';
import { issueKey, testMasters } from '../support/keys.ts';
import { storeFiredRun } from '../support/run-rows.ts';

let db: TestDatabase;
let accountId: string;
let signer: string;
beforeAll(async () => {
  db = await createTestDatabase();
  const issued = await issueKey(db.orm);
  ({ accountId } = issued);
  signer = issued.signer.address;
  await fundFromDevWallet(inject('neoRpcUrl'), inject('devWallet'), signer, 10n ** 9n);
});
afterAll(async () => {
  await db?.drop();
});

const fork = () => db.orm.em.fork();
const neo = () => createNeoRpc(inject('neoRpcUrl'));
const chain = () => ({ em: fork(), networks: new Map([['default', neo()]]), masterKeys: testMasters });
const decide = () => ({ em: fork(), masterKeys: testMasters });
const runRow = (runId: string) => fork().findOneOrFail(AutomationRun, { id: runId }, { populate: ['txRaw'] });

/** A run of a sending function action, begun, whose execution completed with `result`. */
async function decidedRun(result: unknown) {
  const fn = await storeFunction(db.orm, accountId, `decides-${Math.random().toString(36).slice(2)}`);
  const action = {
    type: 'function' as const,
    functionId: fn.id,
    parameters: {},
    execute: { allowedContracts: [gasHash], maxCalls: 4 },
  };
  const runId = await storeFiredRun(db.orm, accountId, action);
  const plan = await beginRun(fork(), runId);
  if (plan.kind !== 'function') throw new Error(`planned ${plan.kind}`);
  expect(plan.sends).toBe(true);
  const end = {
    status: 'completed' as const,
    secretsRead: [],
    logs: [],
    error: null,
    completedAt: new Date(),
    duration: 1,
  };
  const sealed = sealResult(testMasters, plan.executionId, result);
  expect(await storeEnd(fork(), plan.executionId, end, sealed)).toBe(true);
  return runId;
}

describe("a sending function action's decide step", () => {
  it('decides once: a repeated step, a late skip or failure, and a step after the transaction is stored change nothing', async () => {
    const recipient = new wallet.Account(wallet.generatePrivateKey()).address;
    const calls = [gasTransferCall(signer, recipient, '321')];
    const runId = await decidedRun({ calls });

    expect(await decideRun(decide(), runId)).toBe('send');
    expect(await decideRun(decide(), runId)).toBe('send');
    // What a late attempt that read another decision would write: the run keeps its calls.
    await endSkipped(fork(), runId, 'late');
    await failUncalled(fork(), runId, { name: 'InvalidDecision', message: 'late' });
    expect(await runRow(runId)).toMatchObject({ status: 'running', calls, skipped: null, error: null });

    expect(await prepareContractRun(chain(), runId)).toBe('sent');
    const stored = await runRow(runId);
    expect(await decideRun(decide(), runId)).toBe('send');
    expect(await prepareContractRun(chain(), runId)).toBe('sent');
    expect((await runRow(runId)).txRaw).toBe(stored.txRaw);

    expect(await relayContractRun(chain(), runId, () => undefined)).toBe('success');
    expect(await decideRun(decide(), runId)).toBe('success');
    expect(await runRow(runId)).toMatchObject({ status: 'success', txHash: stored.txHash, calls, vmState: 'HALT' });
    expect((await neo().getBalance(recipient, 'GAS')).amount).toBe('321');
  });

  it('ends a skip once, a success holding no calls, and then answers how it ended', async () => {
    const runId = await decidedRun({ skip: 'nothing due' });
    expect(await decideRun(decide(), runId)).toBe('success');
    expect(await decideRun(decide(), runId)).toBe('success');
    expect(await runRow(runId)).toMatchObject({ status: 'success', skipped: 'nothing due', calls: null, txHash: null });
  });

  it('fails an invalid decision before anything is stored or signed', async () => {
    const runId = await decidedRun({
      calls: [{ ...gasTransferCall(signer, signer, '1'), scriptHash: `0x${'ab'.repeat(20)}` }],
    });
    expect(await decideRun(decide(), runId)).toBe('failure');
    expect(await runRow(runId)).toMatchObject({
      status: 'failure',
      calls: null,
      txHash: null,
      error: { name: 'InvalidDecision', message: expect.stringContaining('allowedContracts') },
    });
  });
});

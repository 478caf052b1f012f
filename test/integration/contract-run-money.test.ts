import { wallet } from '@cityofzion/neon-js';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { prepareContractRun, relayContractRun, type ChainDeps } from '../../src/automations/actions/contract-steps.ts';
import { storeCalls, storeTransaction } from '../../src/automations/actions/run-contract.sql.ts';
import { automationSpend, reserve } from '../../src/automations/budget/gas-spend.ts';
import { AutomationRun } from '../../src/automations/model/run.entity.ts';
import type { ContractCall } from '../../src/chain/contract-calls.ts';
import { createNeoRpc, NeoRpcError, type NeoRpc } from '../../src/chain/rpc.ts';
import { fundFromDevWallet } from '../../src/stack/dev-funder.ts';
import { gasHash, gasTransferAction, gasTransferCall } from '../support/automations.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { storeFunction } from '../support/function-rows.ts';
import { issueKey, testMasters } from '../support/keys.ts';
import { until } from '../support/polling.ts';
import { storeFiredRun } from '../support/run-rows.ts';

// The money edges of a contract run (issue 44): what stops a run wrongly or counts its GAS wrong.
let db: TestDatabase;
let accountId: string;
let signer: string;
/** A recipient that holds GAS already: a transfer to it costs the same each time. */
let recipient: string;
beforeAll(async () => {
  db = await createTestDatabase();
  const issued = await issueKey(db.orm);
  ({ accountId } = issued);
  signer = issued.signer.address;
  recipient = new wallet.Account(wallet.generatePrivateKey()).address;
  await fundFromDevWallet(inject('neoRpcUrl'), inject('devWallet'), recipient, 1n);
  await fundFromDevWallet(inject('neoRpcUrl'), inject('devWallet'), signer, 10n ** 9n);
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
const automationOf = async (runId: string) => (await runRow(runId)).automation.id;
const setBudget = (runId: string, budget: Record<string, string>) =>
  fork().execute(
    `update "automations" set "budget" = ? where "id" = (select "automation_id" from "automation_runs" where "id" = ?)`,
    [JSON.stringify(budget), runId],
  );
const setAction = (runId: string, action: unknown) =>
  fork().execute(
    `update "automations" set "action" = ? where "id" = (select "automation_id" from "automation_runs" where "id" = ?)`,
    [JSON.stringify(action), runId],
  );
const hashOf = (byte: string) => `0x${byte.repeat(32)}`;
const oneGas = 10n ** 8n;

describe('a retried prepare of a contract run', () => {
  it('is not held to the reservation of the attempt before it that died unsigned: a run holds one reservation', async () => {
    const runId = await storeFiredRun(db.orm, accountId, gasTransferAction(signer, recipient, '1') as never);
    // A transfer costs about 0.1 GAS: the budget holds one transfer, not one plus the dead attempt's 1 GAS.
    await setBudget(runId, { total: '1' });
    // The first attempt priced its transaction and reserved its fee, then died before storing it.
    expect(await reserve(fork(), runId, { hash: hashOf('dd'), fee: oneGas })).toEqual({ kind: 'reserved' });

    expect(await prepareContractRun(deps(), runId)).toBe('sent');
    const run = await runRow(runId);
    expect(run.error).toBeNull();
    expect(run.txHash).not.toBe(hashOf('dd'));
    expect(await relayContractRun(deps(), runId, () => undefined)).toBe('success');
    const ended = await runRow(runId);
    const landed = BigInt(ended.systemFee!) + BigInt(ended.networkFee!);
    expect(await automationSpend(fork(), await automationOf(runId))).toEqual({
      today: landed,
      total: landed,
      reserved: 0n,
    });
  });

  it('stores no transaction of a stale attempt whose reservation a later attempt released', async () => {
    const runId = await storeFiredRun(db.orm, accountId, gasTransferAction(signer, recipient, '1') as never);
    const stale = { hash: hashOf('a1'), rawTransaction: '00', validUntilBlock: 10 };
    const fresh = { hash: hashOf('b2'), rawTransaction: '01', validUntilBlock: 11 };
    await reserve(fork(), runId, { hash: stale.hash, fee: 5n });
    await reserve(fork(), runId, { hash: fresh.hash, fee: 7n });
    expect(await automationSpend(fork(), await automationOf(runId))).toMatchObject({ total: 7n, reserved: 7n });

    // The stale attempt signs late: its fee is no longer reserved, so the run does not take it.
    await storeTransaction(fork(), runId, stale, await signedBy(runId, 5n));
    expect((await runRow(runId)).txHash).toBeNull();
    await storeTransaction(fork(), runId, fresh, await signedBy(runId, 7n));
    expect((await runRow(runId)).txHash).toBe(fresh.hash);
    // The audit log records the transaction the run holds, once, by the system; not the stale one.
    const signed = await fork().execute<{ resource_id: string; actor_type: string; summary: unknown }[]>(
      `select "resource_id", "actor_type", "summary" from "audit_events" where "action" = 'transaction.sign' and "summary"->'values'->>'runId' = ?`,
      [runId],
    );
    expect(signed).toEqual([
      {
        resource_id: fresh.hash,
        actor_type: 'system',
        summary: { values: expect.objectContaining({ runId, signer, network: 'default', fees: '0.00000007' }) },
      },
    ]);
  });
});

/** What the audit log records of a test's transaction: the account's signer, on the default network. */
const signedBy = async (runId: string, fee: bigint) => ({
  accountId,
  automationId: await automationOf(runId),
  signer: { id: 'sgn_test', address: signer },
  network: 'default',
  fee,
});

/**
 * A node whose pool dropped the transaction and that refuses it when sent again while `refusing`,
 * at `height` until the test moves it past the transaction's validUntilBlock.
 */
function forgetfulNode() {
  const node = { height: 5, refusing: false, sent: 0 };
  const rpc = {
    getBlockCount: () => Promise.resolve(node.height + 1),
    getTransaction: () => Promise.reject(new NeoRpcError('getrawtransaction', 'Unknown transaction', -103)),
    sendRawTransaction: () => {
      node.sent++;
      if (node.refusing) return Promise.reject(new NeoRpcError('sendrawtransaction', 'insufficient funds', -511));
      return Promise.resolve(hashOf('c3'));
    },
  } as unknown as NeoRpc;
  return { node, rpc };
}

/** A run holding a signed transaction valid up to block 20, its fee reserved. */
async function runHoldingTransaction() {
  const runId = await storeFiredRun(db.orm, accountId, gasTransferAction(signer, recipient, '1') as never);
  const call = { hash: hashOf('c3'), rawTransaction: '00', validUntilBlock: 20 };
  await reserve(fork(), runId, { hash: call.hash, fee: 9n });
  await storeTransaction(fork(), runId, call, await signedBy(runId, 9n));
  return { runId, automationId: await automationOf(runId) };
}

describe("a node's refusal of a re-sent transaction", () => {
  it('keeps the run and its reservation until validUntilBlock passes, then ends it not landed, after a worker that sent it was lost', async () => {
    const { runId, automationId } = await runHoldingTransaction();
    const { node, rpc } = forgetfulNode();
    // The first relay has the node accept the transaction, then its worker is lost.
    const lost = new Error('worker lost');
    await expect(
      relayContractRun(deps(rpc), runId, () => {
        if (node.sent > 0) throw lost;
      }),
    ).rejects.toBe(lost);

    // The next attempt's send is refused: the network may still hold what the node accepted.
    node.refusing = true;
    const relayed = relayContractRun(deps(rpc), runId, () => undefined);
    const waiting = await until(
      () => runRow(runId),
      (run) => run.relayError !== null,
      20_000,
    );
    expect(waiting).toMatchObject({ status: 'running', error: null });
    expect(waiting.relayError).toContain('insufficient funds');
    expect(await automationSpend(fork(), automationId)).toMatchObject({ reserved: 9n });

    node.height = 20;
    expect(await relayed).toBe('failure');
    expect((await runRow(runId)).error).toMatchObject({ name: 'TransactionExpired' });
    expect(await automationSpend(fork(), automationId)).toEqual({ today: 0n, total: 0n, reserved: 0n });
  });

  it('still ends the run at once when no node ever accepted its transaction', async () => {
    const { runId } = await runHoldingTransaction();
    const { node, rpc } = forgetfulNode();
    node.refusing = true;
    expect(await relayContractRun(deps(rpc), runId, () => undefined)).toBe('failure');
    expect((await runRow(runId)).error).toMatchObject({ name: 'TransactionRejected' });
  });
});

describe('calls a sending function decided, at prepare', () => {
  let functionId: string;
  beforeAll(async () => {
    functionId = (await storeFunction(db.orm, accountId, 'decides')).id;
  });
  const functionAction = (allowedContracts: string[], maxCalls: number) => ({
    type: 'function' as const,
    functionId,
    parameters: {},
    execute: { allowedContracts, maxCalls },
  });
  const otherContract = `0x${'12'.repeat(20)}`;

  /** A run whose function decided `calls` under allowedContracts [GAS, other] and maxCalls 4. */
  async function decided(calls: ContractCall[]) {
    const runId = await storeFiredRun(db.orm, accountId, functionAction([gasHash, otherContract], 4));
    expect(await storeCalls(fork(), runId, calls)).toHaveLength(calls.length);
    return runId;
  }
  const transfer = () => gasTransferCall(signer, recipient, '1') as ContractCall;

  it('are checked again against allowedContracts as the action has it now: narrowed, the run fails and signs nothing', async () => {
    const runId = await decided([transfer()]);
    await setAction(runId, functionAction([otherContract], 4));
    expect(await prepareContractRun(deps(), runId)).toBe('failure');
    const run = await runRow(runId);
    expect(run.error).toEqual({
      name: 'InvalidDecision',
      message: `The run holds 1 call decided before its action changed; calls[0].scriptHash ${gasHash} is not one of the action's allowedContracts now. Nothing was signed.`,
    });
    expect(run.txHash).toBeNull();
    expect(await automationSpend(fork(), run.automation.id)).toEqual({ today: 0n, total: 0n, reserved: 0n });
  });

  it('are checked again against maxCalls as the action has it now', async () => {
    const runId = await decided([transfer(), transfer()]);
    await setAction(runId, functionAction([gasHash, otherContract], 1));
    expect(await prepareContractRun(deps(), runId)).toBe('failure');
    expect((await runRow(runId)).error).toMatchObject({
      name: 'InvalidDecision',
      message: expect.stringContaining('maxCalls is 1 now'),
    });
  });

  it('are sent while the action as it is now allows them', async () => {
    const runId = await decided([transfer()]);
    await setAction(runId, functionAction([gasHash], 1));
    expect(await prepareContractRun(deps(), runId)).toBe('sent');
  });
});

describe('storing the calls a run sends', () => {
  it('sends a MiB of calls as a bound value, never escaped into a statement`s text on the main thread', async () => {
    const runId = await storeFiredRun(db.orm, accountId, gasTransferAction(signer, recipient, '1') as never);
    const big = 'n'.repeat(64 * 1024);
    const calls = Array.from({ length: 16 }, () => ({
      scriptHash: gasHash,
      operation: 'transfer',
      args: [{ type: 'String', value: big }],
    })) as ContractCall[];
    const em = fork();
    const statements = vi.spyOn(em.getConnection(), 'execute');
    let stored: ContractCall[] | null;
    let sent: unknown[][];
    try {
      stored = await storeCalls(em, runId, calls);
    } finally {
      sent = [...statements.mock.calls];
      statements.mockRestore();
    }
    expect(stored).toEqual(calls);
    // The statements that did go through it (the read of what the run holds) are seen.
    expect(sent.length).toBeGreaterThan(0);
    const escaped = sent.filter(([sql, values]) =>
      [sql, ...((values as unknown[] | undefined) ?? [])].some((part) => String(part).includes(big)),
    );
    expect(escaped).toEqual([]);
  });
});

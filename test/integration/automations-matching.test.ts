import { sc, wallet } from '@cityofzion/neon-js';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { createNeoRpc } from '../../src/chain/rpc.ts';
import { transferCall } from '../../src/chain/nep17.ts';
import { fundFromDevWallet } from '../../src/stack/dev-funder.ts';
import { automationsClient, gasHash, settled, type Loose } from '../support/automations.ts';
import { callContract, fundedSender, sendFaulting, senderAddress } from '../support/contracts.ts';
import { issueKey } from '../support/keys.ts';
import { until } from '../support/polling.ts';
import { apiWithWorkerForThisFile } from '../support/worker.ts';

// Richer matching on the dev chain: operators, anyOf, transaction triggers, and the explain call.
const running = apiWithWorkerForThisFile();
const neo = () => createNeoRpc(inject('neoRpcUrl'));

let client: ReturnType<typeof automationsClient>;
let echo: string;
beforeAll(async () => {
  client = automationsClient(running.api.url, (await issueKey(running.api.database.orm)).key);
  echo = await client.deploy('module.exports = async (context) => context.params.trigger;');
});

const freshAddress = () => new wallet.Account(wallet.generatePrivateKey()).address;

/** Sends `amount` GAS fractions to `recipient` from the dev wallet; answers the transaction hash. */
const transfer = (recipient: string, amount: bigint) =>
  fundFromDevWallet(inject('neoRpcUrl'), inject('devWallet'), recipient, amount);

const sender = () => fundedSender(inject('neoRpcUrl'), inject('devWallet'), 2n);

/** A GAS transfer of `amount` fractions from `from`'s own account, in its own transaction. */
const transferFrom = (from: Awaited<ReturnType<typeof sender>>, recipient: string, amount: bigint) =>
  callContract(neo(), from, gasHash, 'transfer', [
    sc.ContractParam.hash160(senderAddress(from)),
    sc.ContractParam.hash160(recipient),
    sc.ContractParam.integer(amount.toString()),
    sc.ContractParam.any(null),
  ]);

const watch = (trigger: Record<string, unknown>) =>
  client.create({ name: 'matching', trigger, action: { type: 'function', functionId: echo } });

/** The runs of `id` once `count` of them have ended. */
const endedRuns = (id: string, count: number) =>
  until(
    () => client.runs(id),
    (runs) => runs.length >= count && settled(runs),
  );

const txHashes = (runs: Loose[]) => runs.map((run) => run.trigger.txHash as string).sort();

describe('a filter with operators', () => {
  it('`gt` on amount fires only for transfers above the bound', async () => {
    const recipient = freshAddress();
    const id = await watch({
      type: 'blockchain',
      scriptHash: gasHash,
      event: 'Transfer',
      filter: { to: recipient, amount: { gt: '100' } },
    });
    await transfer(recipient, 100n);
    const above = await transfer(recipient, 101n);
    const runs = await endedRuns(id, 1);
    // The follower reads blocks in order: the transfer of 100 was read before the one of 101.
    expect(runs.map((run): unknown => [run.status, run.trigger.txHash])).toEqual([['success', above]]);
  });

  it('`anyOf` two senders fires for both, and not for a third', async () => {
    const [first, second, third] = await Promise.all([sender(), sender(), sender()]);
    const recipient = freshAddress();
    const id = await watch({
      type: 'blockchain',
      scriptHash: gasHash,
      event: ['Transfer'],
      filter: { to: recipient },
      anyOf: [{ from: senderAddress(first) }, { from: senderAddress(second) }],
    });
    const sent = [await transferFrom(first, recipient, 1n), await transferFrom(second, recipient, 1n)];
    await transferFrom(third, recipient, 1n);
    // A last matching transfer, after the third's: once it has fired, the third's block was read.
    sent.push(await transferFrom(first, recipient, 2n));
    const runs = await endedRuns(id, 3);
    expect(txHashes(runs)).toEqual([...sent].sort());
    expect(runs.every((run) => run.status === 'success')).toBe(true);
  });
});

describe('event and parameter names', () => {
  const create = (trigger: Record<string, unknown>) =>
    client.call('POST', '/automations', { name: 'names', trigger, action: { type: 'function', functionId: echo } });

  it('are checked against the contract`s manifest at create: 404 without a contract, 400 for a name it lacks', async () => {
    const nowhere = `0x${'12'.repeat(20)}`;
    const missing = await create({ type: 'blockchain', scriptHash: nowhere, event: 'Transfer' });
    expect(missing.status).toBe(404);
    expect(missing.body.error).toMatchObject({ code: 'CONTRACT_NOT_FOUND', details: { field: 'trigger.scriptHash' } });
    const event = await create({ type: 'blockchain', scriptHash: gasHash, event: 'Transferred' });
    expect(event.status).toBe(400);
    expect(event.body.error).toMatchObject({ code: 'INVALID_REQUEST', details: { field: 'trigger.event' } });
    const key = await create({ type: 'blockchain', scriptHash: gasHash, event: 'Transfer', filter: { amout: '1' } });
    expect(key.status).toBe(400);
    expect(key.body.error).toMatchObject({ code: 'INVALID_REQUEST', details: { field: 'trigger.filter.amout' } });
    const inAnyOf = await create({ type: 'blockchain', scriptHash: gasHash, anyOf: [{ to: 'x' }, { sender: 'x' }] });
    expect(inAnyOf.body.error).toMatchObject({ details: { field: 'trigger.anyOf.1.sender' } });
    // Without names to check, a contract not deployed yet may be watched (until the follower gives up on it).
    expect((await create({ type: 'blockchain', scriptHash: nowhere })).status).toBe(201);
  });
});

describe('a transaction trigger', () => {
  it('with vmState FAULT fires on a transfer that faults, and not on one that succeeds', async () => {
    const from = await sender();
    const address = senderAddress(from);
    const id = await watch({
      type: 'transaction',
      sender: address,
      scriptHash: gasHash,
      operation: 'transfer',
      vmState: 'FAULT',
    });
    await transferFrom(from, freshAddress(), 1n);
    // More than the sender holds: `transfer` answers false, and the ASSERT after it faults.
    const script = new sc.ScriptBuilder()
      .emitContractCall(transferCall('GAS', wallet.getScriptHashFromAddress(address), freshAddress(), 10n ** 12n))
      .emit(sc.OpCode.ASSERT)
      .build();
    const faulted = await sendFaulting(neo(), script, from);
    const runs = await endedRuns(id, 1);
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({
      status: 'success',
      trigger: {
        type: 'transaction',
        txHash: faulted,
        vmState: 'FAULT',
        sender: `0x${wallet.getScriptHashFromAddress(address)}`,
      },
    });
    const execution = await client.call('GET', `/functions/${echo}/executions/${runs[0]!.executionId as string}`);
    expect(execution.body.data.result).toMatchObject({
      type: 'transaction',
      vmState: 'FAULT',
      exception: expect.any(String),
      calls: [{ scriptHash: gasHash, operation: 'transfer' }],
    });
  });
});

describe('POST /automations/{id}/test', () => {
  it('names the filter key and both values for a transfer that does not match, and dry-runs the action of one that does, recording nothing', async () => {
    const recipient = freshAddress();
    const tested = await client.deploy('module.exports = async (context) => context.params.trigger;');
    const id = await client.create({
      name: 'explained',
      status: 'inactive',
      trigger: {
        type: 'blockchain',
        scriptHash: gasHash,
        event: 'Transfer',
        filter: { to: recipient, amount: { gt: '100' } },
      },
      action: { type: 'function', functionId: tested },
    });
    const small = await transfer(recipient, 50n);
    const large = await transfer(recipient, 150n);

    const missed = await client.call('POST', `/automations/${id}/test`, { txHash: small });
    expect(missed.status, JSON.stringify(missed.body)).toBe(200);
    expect(missed.body).toMatchObject({
      matched: false,
      checked: [
        {
          txHash: small,
          notificationIndex: 0,
          matched: false,
          reasons: [{ condition: 'filter', key: 'amount', expected: { gt: '100' }, actual: '50' }],
        },
      ],
    });
    expect(missed.body.checked[0].reasons).toHaveLength(1);
    expect(missed.body.checked[0].reasons[0].message).toContain('amount');
    expect(missed.body).not.toHaveProperty('dryRun');

    const hit = await client.call('POST', `/automations/${id}/test`, { txHash: large });
    expect(hit.status, JSON.stringify(hit.body)).toBe(200);
    expect(hit.body).toMatchObject({
      matched: true,
      fire: { type: 'blockchain', txHash: large, eventName: 'Transfer', state: { amount: '150' } },
      dryRun: {
        type: 'function',
        status: 'completed',
        result: { type: 'test', txHash: large, state: { amount: '150' } },
      },
    });

    // Nothing recorded: no run, no execution.
    expect(await client.runs(id)).toEqual([]);
    const executions = await client.call('GET', `/functions/${tested}/executions`);
    expect(executions.body.data).toEqual([]);
  });
});

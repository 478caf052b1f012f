import { wallet } from '@cityofzion/neon-js';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { createNeoRpc } from '../../src/chain/rpc.ts';
import { fundFromDevWallet } from '../../src/stack/dev-funder.ts';
import { automationsClient, gasHash, gasTransferAction, settled, type Loose } from '../support/automations.ts';
import { issueKey } from '../support/keys.ts';
import { until } from '../support/polling.ts';
import { apiWithWorkerForThisFile } from '../support/worker.ts';

// Contract arguments from the trigger: a GAS Transfer watcher whose action forwards the amount.
const running = apiWithWorkerForThisFile({ hostWorker: false });
const neo = () => createNeoRpc(inject('neoRpcUrl'));

let client: ReturnType<typeof automationsClient>;
let signerAddress: string;
beforeAll(async () => {
  const issued = await issueKey(running.api.database.orm);
  client = automationsClient(running.api.url, issued.key);
  signerAddress = issued.signer.address;
  await fundFromDevWallet(inject('neoRpcUrl'), inject('devWallet'), signerAddress, 10n ** 9n);
});

const freshAddress = () => new wallet.Account(wallet.generatePrivateKey()).address;
const hashOf = (address: string) => `0x${wallet.getScriptHashFromAddress(address)}`;
const gasOf = async (address: string) => BigInt((await neo().getBalance(address, 'GAS')).amount);
/** Sends `amount` GAS fractions to `recipient` from the dev wallet; answers the transaction hash. */
const transfer = (recipient: string, amount: bigint) =>
  fundFromDevWallet(inject('neoRpcUrl'), inject('devWallet'), recipient, amount);

/** GAS `Transfer`s to `watched`: a transaction's fee burn is a Transfer too, `to` null, never matched. */
const transfersTo = (watched: string) => ({
  type: 'blockchain',
  scriptHash: gasHash,
  event: 'Transfer',
  filter: { to: watched },
});

/** The signer's GAS `transfer` to `recipient` of what `amount` says (a template, or a fixed amount). */
const forward = (recipient: string, amount: string) => gasTransferAction(signerAddress, recipient, amount);

/** A watcher of transfers to a new address that sends `amount` to another new address. */
async function forwarder(amount: string) {
  const watched = freshAddress();
  const fixed = freshAddress();
  const id = await client.create({
    name: `forward ${amount}`,
    trigger: transfersTo(watched),
    action: forward(fixed, amount),
  });
  return { watched, fixed, id };
}

const endedRuns = (id: string, count: number) =>
  until(
    () => client.runs(id),
    (runs) => runs.length >= count && settled(runs),
    60_000,
  );

describe('a contract action whose arguments come from the trigger', () => {
  it('forwards exactly each matching transfer`s amount, once per transfer', async () => {
    const { watched, fixed, id } = await forwarder('{{trigger.state.amount}}');
    const first = await transfer(watched, 12_345n);
    const second = await transfer(watched, 67_890n);

    const runs = await endedRuns(id, 2);
    expect(runs).toHaveLength(2);
    const byCause = new Map(runs.map((run) => [run.trigger.txHash as string, run]));
    for (const [cause, amount] of [
      [first, '12345'],
      [second, '67890'],
    ] as const) {
      const run = byCause.get(cause)!;
      expect(run).toMatchObject({ status: 'success', vmState: 'HALT', txHash: expect.stringMatching(/^0x/) });
      // As sent: the template resolved, the rest as given.
      const { scriptHash, operation, args } = forward(fixed, amount);
      expect(run.calls).toEqual([{ scriptHash, operation, args }]);
    }
    expect(new Set(runs.map((run) => run.txHash as string)).size).toBe(2);
    expect(await gasOf(fixed)).toBe(12_345n + 67_890n);
    // Its own transfers (to the fixed address) and their fee burns (to nobody) fire nothing more.
    expect(await client.runs(id)).toHaveLength(2);
  }, 120_000);

  it('fails the run with TemplateError naming the argument when the path is missing, sending nothing', async () => {
    const { watched, fixed, id } = await forwarder('{{trigger.state.amout}}');
    const cause = await transfer(watched, 5_000n);
    const [run] = await endedRuns(id, 1);
    expect(run).toMatchObject({
      status: 'failure',
      trigger: { txHash: cause },
      error: {
        name: 'TemplateError',
        message: 'args.2: {{trigger.state.amout}} names nothing in what fired this run (a blockchain fire).',
      },
    });
    expect(run).not.toHaveProperty('txHash');
    expect(run).not.toHaveProperty('calls');
    expect(await gasOf(fixed)).toBe(0n);
  }, 120_000);
});

describe('templates on create and PATCH', () => {
  const schedule = { type: 'schedule', cron: '@yearly' };

  it('refuses a malformed template, and a root the trigger never carries, at the field', async () => {
    const fixed = freshAddress();
    const malformed = await client.call('POST', '/automations', {
      name: 'malformed',
      trigger: transfersTo(fixed),
      action: forward(fixed, '{{trigger.state.amount'),
    });
    expect(malformed.status).toBe(400);
    expect(malformed.body.error).toMatchObject({ code: 'INVALID_REQUEST', details: { field: 'action.args.2.value' } });

    const priceOnSchedule = await client.call('POST', '/automations', {
      name: 'price on a schedule',
      trigger: schedule,
      action: forward(fixed, '{{trigger.price}}'),
    });
    expect(priceOnSchedule.status).toBe(400);
    expect(priceOnSchedule.body.error).toEqual({
      code: 'INVALID_REQUEST',
      message: '"action.args.2.value" names trigger.price, which a schedule trigger does not carry.',
      details: { field: 'action.args.2.value' },
    });
  });

  it('checks a PATCH against the automation it leaves: a new trigger, or a new action', async () => {
    const watched = freshAddress();
    const id = await client.create({
      name: 'forward',
      status: 'inactive',
      trigger: transfersTo(watched),
      action: forward(watched, '{{trigger.state.amount}}'),
    });
    const toSchedule = await client.call('PATCH', `/automations/${id}`, { trigger: schedule });
    expect(toSchedule.status).toBe(400);
    expect(toSchedule.body.error.details).toEqual({ field: 'action.args.2.value' });

    const withBlockIndex = await client.call('PATCH', `/automations/${id}`, {
      action: forward(hashOf(watched), '{{trigger.blockIndex}}'),
    });
    expect(withBlockIndex.status).toBe(200);
    const stored: Loose = (await client.call('GET', `/automations/${id}`)).body;
    expect(stored.trigger).toMatchObject({ type: 'blockchain' });
    expect(stored.action.args[2]).toEqual({ type: 'Integer', value: '{{trigger.blockIndex}}' });

    const fixedAction = await client.call('PATCH', `/automations/${id}`, {
      trigger: schedule,
      action: forward(watched, '1'),
    });
    expect(fixedAction.status).toBe(200);
  });
});

import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { wallet } from '@cityofzion/neon-js';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createNeoRpc } from '../../src/chain/rpc.ts';
import { fundFromDevWallet } from '../../src/stack/dev-funder.ts';
import { startTestApi, type TestApi } from '../support/api.ts';
import { automationsClient, gasTransferAction, type Loose } from '../support/automations.ts';
import { issueKey } from '../support/keys.ts';
import { until } from '../support/polling.ts';
import { gasOf } from '../support/sent-transaction.ts';
import { testWorkerEnv } from '../support/temporal.ts';
import { startWorkerProcess, type WorkerProcess } from '../support/worker-process.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.ts';
import { neoflow } from '../support/cli.ts';

// Approvals before signing (issue 47), on the real stack: the API in process, its worker a process
// of its own that is killed while a run waits, neo-go for the chain.
let api: TestApi;
let scratch: string;
let taskQueue: string;
let receiver: WebhookReceiver;
let workerCount = 0;
const workers: WorkerProcess[] = [];
const neo = () => createNeoRpc(inject('neoRpcUrl'));
/** A reconciler's pass every second: a lost signal is sent again within a few. */
const recoveryEnv = { NEOFLOW_RECOVERY_SECONDS: '1' };

const startWorker = async () => {
  const worker = await startWorkerProcess(
    api.database.url,
    taskQueue,
    join(scratch, 'data'),
    join(scratch, `worker-${++workerCount}.log`),
    testWorkerEnv(api.database.url, recoveryEnv),
  );
  workers.push(worker);
};

/** The owner's client (it creates every automation), and keys made over the API by role. */
let owner: ReturnType<typeof automationsClient>;
const keys: Record<'approver' | 'approver2' | 'viewer' | 'admin', ReturnType<typeof automationsClient>> = {} as never;
let approver2Key: string;
let signerAddress: string;

beforeAll(async () => {
  taskQueue = `approvals-${randomBytes(4).toString('hex')}`;
  scratch = await mkdtemp(join(tmpdir(), 'neoflow-approvals-'));
  receiver = await startWebhookReceiver();
  api = await startTestApi([], { NEOFLOW_TASK_QUEUE: taskQueue, ...recoveryEnv });
  await startWorker();
  owner = automationsClient(api.url, (await issueKey(api.database.orm, ['*'])).key);
  const roles = { approver: 'approver', approver2: 'approver', viewer: 'viewer', admin: 'admin' } as const;
  for (const [name, role] of Object.entries(roles)) {
    const made = await owner.call('POST', '/keys', { name, role });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    keys[name as keyof typeof roles] = automationsClient(api.url, made.body.key as string);
    if (name === 'approver2') approver2Key = made.body.key as string;
  }
  expect(
    (await owner.call('POST', '/secrets', { name: 'HOOK_SECRET', value: 'whsec-approvals-0123456789' })).status,
  ).toBe(201);
  signerAddress = (await owner.call('GET', '/account')).body.signer.address as string;
  await fundFromDevWallet(inject('neoRpcUrl'), inject('devWallet'), signerAddress, 10n ** 10n);
}, 180_000);
afterAll(async () => {
  await Promise.allSettled(workers.map((worker) => worker.stop()));
  await api?.close();
  await receiver?.close();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

/** An inactive automation, fired by hand, paying `amount` GAS fractions to a new address under `approval`. */
async function paying(amount: string, approval: Record<string, unknown>, notify: unknown[] = []) {
  const recipient = new wallet.Account(wallet.generatePrivateKey()).address;
  const id = await owner.create({
    name: `approve ${amount}`,
    status: 'inactive',
    trigger: { type: 'schedule', cron: '@yearly' },
    action: { ...gasTransferAction(signerAddress, recipient, amount), approval },
    notify,
  });
  const fired = await owner.call('POST', `/automations/${id}/trigger`);
  expect(fired.status).toBe(202);
  return { id, recipient, runId: fired.body.run.id as string };
}

const runOf = async (id: string, runId: string) => (await owner.call('GET', `/automations/${id}/runs/${runId}`)).body;

/** The run once it waits for approvals, its calls and fees known. */
async function pending(id: string, runId: string): Promise<Loose> {
  const run = await until(
    () => runOf(id, runId),
    (read) => read.approval?.status === 'pending' || read.status !== 'running',
    60_000,
  );
  expect(run).toMatchObject({ status: 'running', approval: { status: 'pending' } });
  return run;
}

const ended = (id: string, runId: string) =>
  until(
    () => runOf(id, runId),
    (read) => read.status !== 'running',
    90_000,
  );

const decide = (by: ReturnType<typeof automationsClient>, id: string, runId: string, decision: 'approve' | 'reject') =>
  by.call('POST', `/automations/${id}/runs/${runId}/${decision}`);

/** The run's workflow waits on its signal or its timer: no activity pending, nothing scheduled to sign. */
async function expectBlockedOnSignal(runId: string) {
  const described = await api.services.temporal.client.workflow.getHandle(runId).describe();
  expect(described.status.name).toBe('RUNNING');
  expect(described.raw.pendingActivities ?? []).toEqual([]);
}

describe('a run of an automation with approval: {required: 1, timeout: "1h"}', () => {
  it('waits unsigned showing its calls and fees, refuses the creator and keys without approvals:write, and sends once approved', async () => {
    const hook = `/approvals-${randomBytes(4).toString('hex')}`;
    const notify = [
      {
        on: ['approval_requested'],
        channel: { type: 'webhook', url: receiver.url(hook), signingSecret: 'HOOK_SECRET' },
      },
    ];
    const { id, recipient, runId } = await paying('777', { required: 1, timeout: '1h' }, notify);
    const before = await gasOf(signerAddress);
    const run = await pending(id, runId);
    const call = gasTransferAction(signerAddress, recipient, '777');
    expect(run.approval).toMatchObject({
      required: 1,
      calls: [{ scriptHash: call.scriptHash, operation: 'transfer', args: call.args }],
      fees: { systemFee: expect.stringMatching(/^[1-9]\d*$/), networkFee: expect.stringMatching(/^[1-9]\d*$/) },
      approvals: [],
    });
    const waitMs = Date.parse(run.approval.deadline) - Date.parse(run.approval.requestedAt);
    expect(waitMs).toBe(3_600_000);
    expect(run.txHash ?? null).toBeNull();

    // The channels are told, with what the run waits for.
    const [told] = await until(
      async () => receiver.at(hook),
      (got) => got.length > 0,
    );
    expect(JSON.parse(told!.body)).toMatchObject({
      event: 'approval_requested',
      run: { id: runId },
      approval: { required: 1 },
    });

    // Blocks go by and nothing of the signer's reaches the chain: its workflow waits on the signal.
    const height = await neo().getBlockCount();
    await until(
      () => neo().getBlockCount(),
      (now) => now >= height + 3,
    );
    await expectBlockedOnSignal(runId);
    expect(await gasOf(signerAddress)).toBe(before);
    expect((await neo().getBalance(recipient, 'GAS')).amount).toBe('0');

    const byCreator = await decide(owner, id, runId, 'approve');
    expect(byCreator.status).toBe(403);
    expect(byCreator.body.error.code).toBe('FORBIDDEN');
    expect((await decide(keys.viewer, id, runId, 'approve')).status).toBe(403);
    expect((await runOf(id, runId)).approval.status).toBe('pending');

    const approvedAt = await neo().getBlockCount();
    const approved = await decide(keys.approver, id, runId, 'approve');
    expect(approved.status, JSON.stringify(approved.body)).toBe(200);
    expect(approved.body.approval).toMatchObject({ status: 'approved', approvals: [{ keyId: expect.any(String) }] });

    const done = await ended(id, runId);
    expect(done).toMatchObject({ status: 'success', vmState: 'HALT', txHash: expect.stringMatching(/^0x/) });
    expect(await neo().getTransaction(done.txHash)).toMatchObject({ blockhash: expect.any(String), vmstate: 'HALT' });
    // Signed after the approval: its validUntilBlock counts from then.
    expect(done.validUntilBlock).toBeGreaterThan(approvedAt);
    expect((await neo().getBalance(recipient, 'GAS')).amount).toBe('777');

    // The audit log holds the approval once, by the approver's key, and the refused ones not at all.
    const audited = await owner.call('GET', `/audit-events?action=run.approve&resourceId=${encodeURIComponent(runId)}`);
    expect(audited.status).toBe(200);
    expect(audited.body.events).toEqual([
      expect.objectContaining({
        action: 'run.approve',
        resource: { type: 'run', id: runId },
        actor: expect.objectContaining({ keyId: approved.body.approval.approvals[0].keyId }),
      }),
    ]);

    const second = await decide(keys.approver2, id, runId, 'approve');
    expect(second.status).toBe(409);
    expect(second.body.error.code).toBe('APPROVAL_NOT_PENDING');
    expect((await decide(keys.approver, id, runId, 'approve')).status).toBe(409);
  }, 180_000);
});

describe('a run waiting for approvals', () => {
  it('rejected, ends ApprovalRejected with nothing on chain and its reservation released; the key that last changed the automation cannot decide', async () => {
    const { id, recipient, runId } = await paying('555', { required: 2, timeout: '1h' });
    await pending(id, runId);
    // The admin key changes the automation (a field that is no pause): it may not decide its runs.
    expect((await keys.admin.call('PATCH', `/automations/${id}`, { name: 'renamed by admin' })).status).toBe(200);
    expect((await decide(keys.admin, id, runId, 'approve')).status).toBe(403);
    // One of the two approvals; the same key again is refused.
    expect((await decide(keys.approver, id, runId, 'approve')).status).toBe(200);
    const again = await decide(keys.approver, id, runId, 'approve');
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('ALREADY_DECIDED');
    // The second approver finds it with the CLI, and rejects it there.
    const cli = (...args: string[]) => neoflow(args, { NEOFLOW_API_URL: api.url, NEOFLOW_API_KEY: approver2Key });
    const listed = await cli('approvals', 'list');
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toMatch(
      new RegExp(`^${id} \\(renamed by admin\\)  ${runId}  1/2 approved  fee \\d+\\.?\\d* GAS  until `, 'm'),
    );
    const rejected = await cli('approvals', 'reject', id, runId);
    expect(rejected.code, rejected.stderr).toBe(0);
    expect(rejected.stdout).toMatch(
      new RegExp(`^rejected ${runId}: approval rejected \\(1/2\\), run (running|failure)\n$`),
    );
    expect((await cli('approvals', 'reject', id, runId)).stderr).toMatch(/APPROVAL_NOT_PENDING/);

    const done = await ended(id, runId);
    expect(done).toMatchObject({
      status: 'failure',
      error: { name: 'ApprovalRejected' },
      approval: { status: 'rejected' },
    });
    expect(done.txHash ?? null).toBeNull();
    expect((await neo().getBalance(recipient, 'GAS')).amount).toBe('0');
    expect((await owner.call('GET', `/automations/${id}`)).body.gas).toMatchObject({ reserved: '0', spentTotal: '0' });
  }, 120_000);

  it('with a 2-second timeout, ends ApprovalExpired with nothing signed', async () => {
    const { id, recipient, runId } = await paying('444', { required: 1, timeout: '2s' });
    const done = await ended(id, runId);
    expect(done).toMatchObject({
      status: 'failure',
      error: { name: 'ApprovalExpired' },
      approval: { status: 'expired' },
    });
    expect(done.txHash ?? null).toBeNull();
    expect((await decide(keys.approver, id, runId, 'approve')).status).toBe(409);
    expect((await neo().getBalance(recipient, 'GAS')).amount).toBe('0');
    expect((await owner.call('GET', `/automations/${id}`)).body.gas).toMatchObject({ reserved: '0' });
  }, 120_000);

  it('outlives every worker killed while it waits: restarted, then approved, it sends once', async () => {
    const { id, recipient, runId } = await paying('333', { required: 1, timeout: '1h' });
    await pending(id, runId);
    for (const worker of workers.splice(0)) {
      worker.process.child.kill('SIGKILL');
      expect(await worker.process.exited).toBe('SIGKILL');
    }
    await startWorker();
    expect((await decide(keys.approver, id, runId, 'approve')).status).toBe(200);
    const done = await ended(id, runId);
    expect(done).toMatchObject({ status: 'success', vmState: 'HALT' });
    expect((await neo().getBalance(recipient, 'GAS')).amount).toBe('333');
    expect(await owner.runs(id)).toHaveLength(1);
  }, 180_000);
});

describe('a decision whose signal was lost', () => {
  it('is found by the reconciler, which signals the run again: it sends', async () => {
    const { id, recipient, runId } = await paying('111', { required: 1, timeout: '1h' });
    await pending(id, runId);
    // As the API commits an approval and dies before it signals the workflow.
    await api.database.orm.em.fork().transactional(async (tx) => {
      await tx.execute(
        `insert into "run_approvals" ("run_id", "key_id", "decision") values (?, 'key_lost', 'approve')`,
        [runId],
      );
      await tx.execute(
        `update "automation_runs" set "approval" = jsonb_set("approval", '{status}', '"approved"') where "id" = ?`,
        [runId],
      );
    });
    const done = await ended(id, runId);
    expect(done).toMatchObject({
      status: 'success',
      vmState: 'HALT',
      approval: { approvals: [{ keyId: 'key_lost' }] },
    });
    expect((await neo().getBalance(recipient, 'GAS')).amount).toBe('111');
  }, 120_000);
});

describe('approval: {when: {feeAbove: "1"}}', () => {
  it('lets a run whose fee is under 1 GAS through without waiting', async () => {
    const { id, recipient, runId } = await paying('222', { required: 1, timeout: '1h', when: { feeAbove: '1' } });
    const done = await ended(id, runId);
    expect(done).toMatchObject({ status: 'success', vmState: 'HALT' });
    expect(done.approval).toBeUndefined();
    expect((await neo().getBalance(recipient, 'GAS')).amount).toBe('222');
  }, 120_000);
});

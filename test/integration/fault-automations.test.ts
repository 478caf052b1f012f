import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { wallet } from '@cityofzion/neon-js';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { AutomationRun } from '../../src/automations/model/run.entity.ts';
import { followerId } from '../../src/automations/blocks/follower.control.ts';
import { createNeoRpc } from '../../src/chain/rpc.ts';
import { fundFromDevWallet } from '../../src/stack/dev-funder.ts';
import { startTestApi, type TestApi } from '../support/api.ts';
import { startApiProcess } from '../support/api-process.ts';
import { automationsClient, gasHash as gas, gasTransferAction, settled } from '../support/automations.ts';
import { issueKey } from '../support/keys.ts';
import { until } from '../support/polling.ts';
import { testWorkerEnv } from '../support/temporal.ts';
import { startWorkerProcess, type WorkerProcess } from '../support/worker-process.ts';
import { closeServer } from '../support/close-server.ts';

let api: TestApi;
let key: string;
let scratch: string;
let taskQueue: string;
let workerCount = 0;
const workers: WorkerProcess[] = [];

/** A worker process; `env` over the tests' defaults. */
const startWorker = async (env: Record<string, string> = {}) => {
  const worker = await startWorkerProcess(
    api.database.url,
    taskQueue,
    join(scratch, 'data'),
    join(scratch, `worker-${++workerCount}.log`),
    { ...testWorkerEnv(api.database.url), ...env },
  );
  workers.push(worker);
  return worker;
};

const kill = async (worker: WorkerProcess) => {
  worker.process.child.kill('SIGKILL');
  expect(await worker.process.exited).toBe('SIGKILL');
};

beforeAll(async () => {
  taskQueue = `fault-auto-${randomBytes(4).toString('hex')}`;
  scratch = await mkdtemp(join(tmpdir(), 'neoflow-fault-auto-'));
  api = await startTestApi([], { NEOFLOW_TASK_QUEUE: taskQueue });
  ({ key } = await issueKey(api.database.orm));
  await startWorker();
});
afterAll(async () => {
  await Promise.allSettled(workers.map((worker) => worker.stop()));
  await api?.close();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

let client: ReturnType<typeof automationsClient>;
beforeAll(() => {
  client = automationsClient(api.url, key);
});

describe('fault: kill -9 of the worker while a watcher follows blocks', () => {
  it('fires every matching event exactly once after the restart, while transfers keep happening', async () => {
    const recipient = new wallet.Account(wallet.generatePrivateKey()).address;
    const functionId = await client.deploy('module.exports = async (c) => c.params.trigger.txHash;');
    const id = await client.create({
      name: 'watch the recipient',
      trigger: { type: 'blockchain', scriptHash: gas, event: 'Transfer', filter: { to: recipient } },
      action: { type: 'function', functionId },
    });
    const sent: string[] = [];
    const send = async (count: number) => {
      for (let i = 0; i < count; i++) {
        sent.push(
          await fundFromDevWallet(inject('neoRpcUrl'), inject('devWallet'), recipient, BigInt(sent.length + 1)),
        );
      }
    };
    await send(3);
    await kill(workers.at(-1)!);
    await send(4);
    await startWorker();
    const restartedAt = Date.now();
    await send(3);

    await until(
      () => client.runs(id),
      (runs) => runs.length >= sent.length && settled(runs),
      90_000,
    );
    const caughtUpS = ((Date.now() - restartedAt) / 1000).toFixed(1);
    // Late duplicates would show up here.
    await sleep(3_000);
    const runs = await client.runs(id);
    const fired = runs.map((run) => run.trigger.txHash as string);
    console.log(
      `[fault-watcher] ${sent.length} transfers, ${runs.length} runs, all fired ${caughtUpS} s after the restart`,
    );
    expect(fired.sort()).toEqual([...sent].sort());
    expect(runs.every((run) => run.status === 'success')).toBe(true);
    const executions = await client.call('GET', `/functions/${functionId}/executions?limit=100`);
    expect(executions.body.pagination?.total).toBe(sent.length);
  }, 180_000);
});

/** An inactive automation of the account's funded signer paying `amount` GAS fractions to a new address. */
async function payingAutomation(amount: string) {
  const neo = createNeoRpc(inject('neoRpcUrl'));
  const { signer } = (await client.call('GET', '/account')).body as { signer: { address: string } };
  await fundFromDevWallet(neo.url, inject('devWallet'), signer.address, 10n ** 9n);
  const recipient = new wallet.Account(wallet.generatePrivateKey()).address;
  const id = await client.create({
    name: `pay ${amount}`,
    status: 'inactive',
    trigger: { type: 'schedule', cron: '@yearly' },
    action: gasTransferAction(signer.address, recipient, amount),
  });
  return { neo, recipient, id };
}

describe('fault: kill -9 of the worker right after a contract transaction is sent', () => {
  it('leaves exactly one transaction on chain for the run after the restart', async () => {
    const { neo, recipient, id } = await payingAutomation('777');
    const fired = await client.call('POST', `/automations/${id}/trigger`);
    expect(fired.status).toBe(202);
    const runId = fired.body.run.id as string;

    const txHash = await sentTransaction(runId, neo);
    await kill(workers.at(-1)!);
    await startWorker();

    const [run] = await until(() => client.runs(id), settled, 90_000);
    expect(run).toMatchObject({ id: runId, status: 'success', txHash, vmState: 'HALT' });
    const received = await neo.getBalance(recipient, 'GAS');
    expect(received.amount).toBe('777');
  }, 180_000);
});

describe('fault: kill -9 of the worker between signing a contract transaction and relaying it', () => {
  it('sends the signed transaction once, the same hash, from the next worker', async () => {
    const { neo, recipient, id } = await payingAutomation('4242');
    // The only worker is one whose node never receives a transaction: it signs, stores, then stalls sending.
    const node = await nodeHoldingTransactions(neo.url);
    await workers.at(-1)!.stop();
    const holding = await startWorker({ NEO_RPC_URL: node.url });
    let signed: string;
    try {
      const fired = await client.call('POST', `/automations/${id}/trigger`);
      expect(fired.status).toBe(202);
      const runId = fired.body.run.id as string;
      const held = await until(
        async () => node.held,
        (sends) => sends > 0,
        30_000,
      );
      expect(held).toBeGreaterThan(0);
      const stored = await api.database.orm.em.fork().findOneOrFail(AutomationRun, { id: runId });
      signed = stored.txHash!;
      expect(signed).toMatch(/^0x[0-9a-f]{64}$/);
      await expect(neo.getTransaction(signed)).rejects.toThrow();
      await kill(holding);
    } finally {
      await node.close();
    }
    await startWorker();

    const [run] = await until(() => client.runs(id), settled, 150_000);
    // The transaction signed before the kill, not one signed anew.
    expect(run).toMatchObject({ status: 'success', vmState: 'HALT', txHash: signed });
    expect((await neo.getTransaction(signed)).blockhash).toMatch(/^0x/);
    // Sent twice (a transaction signed anew), the recipient would hold twice the amount.
    expect((await neo.getBalance(recipient, 'GAS')).amount).toBe('4242');
    expect(await client.runs(id)).toHaveLength(1);
  }, 240_000);
});

/**
 * A JSON-RPC proxy to the node at `target` that answers every method but `sendrawtransaction`,
 * whose requests it holds unanswered (and never forwards); `held` counts them.
 */
async function nodeHoldingTransactions(target: string) {
  const state = { held: 0 };
  const server = createServer((request, response) => {
    void (async () => {
      const body = await bodyOf(request);
      if ((JSON.parse(body) as { method?: string }).method === 'sendrawtransaction') {
        state.held++;
        return;
      }
      const answer = await fetch(target, { method: 'POST', body, headers: { 'content-type': 'application/json' } });
      response.writeHead(answer.status, { 'content-type': 'application/json' }).end(await answer.text());
    })().catch(() => response.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    get held() {
      return state.held;
    },
    close: () => closeServer(server),
  };
}

async function bodyOf(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** Waits until the run's transaction is stored and the node knows it (relayed), then answers its hash. */
async function sentTransaction(runId: string, neo: ReturnType<typeof createNeoRpc>): Promise<string> {
  const em = api.database.orm.em.fork();
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    const run = await em.findOne(AutomationRun, { id: runId }, { refresh: true });
    if (
      run?.txHash &&
      (await neo.getTransaction(run.txHash).then(
        () => true,
        () => false,
      ))
    )
      return run.txHash;
    await sleep(10);
  }
  throw new Error(`run ${runId} sent no transaction within 30 s`);
}

describe('a block follower terminated by an operator', () => {
  it('is started again by the next API start while blockchain automations are active', async () => {
    await client.create({
      name: 'watch GAS',
      trigger: { type: 'blockchain', scriptHash: gas, event: 'Transfer' },
      action: { type: 'function', functionId: await client.deploy('module.exports = async () => 1;') },
    });
    const magic = await createNeoRpc(inject('neoRpcUrl')).getNetworkMagic();
    const follower = api.services.temporal.client.workflow.getHandle(followerId(String(magic), taskQueue));
    await follower.terminate('operator');
    expect((await follower.describe()).status.name).toBe('TERMINATED');

    const restarted = await startApiProcess(api.database.url, { NEOFLOW_TASK_QUEUE: taskQueue });
    try {
      // The API answers health checks before it has resumed the follower: give it that moment.
      const status = await until(
        async () => (await follower.describe()).status.name,
        (name) => name === 'RUNNING',
        10_000,
      );
      expect(status).toBe('RUNNING');
    } finally {
      await restarted.stop();
    }
  });
});

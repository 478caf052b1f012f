import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { wallet } from '@cityofzion/neon-js';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createNeoRpc } from '../../src/chain/rpc.ts';
import { fundFromDevWallet } from '../../src/stack/dev-funder.ts';
import { startTestApi, type TestApi } from '../support/api.ts';
import { automationsClient, gasHash, settled, type Loose } from '../support/automations.ts';
import { issueKey } from '../support/keys.ts';
import { until } from '../support/polling.ts';
import { testWorkerEnv } from '../support/temporal.ts';
import { startWorkerProcess, type WorkerProcess } from '../support/worker-process.ts';

let api: TestApi;
let client: ReturnType<typeof automationsClient>;
let scratch: string;
let taskQueue: string;
let workerCount = 0;
const workers: WorkerProcess[] = [];

/** A worker process reading two blocks a second in a replay: slow enough to be killed mid-replay. */
const startWorker = async () => {
  const worker = await startWorkerProcess(
    api.database.url,
    taskQueue,
    join(scratch, 'data'),
    join(scratch, `worker-${++workerCount}.log`),
    testWorkerEnv(api.database.url, { NEOFLOW_REPLAY_BLOCKS_PER_SECOND: '2' }),
  );
  workers.push(worker);
  return worker;
};

beforeAll(async () => {
  taskQueue = `fault-replay-${randomBytes(4).toString('hex')}`;
  scratch = await mkdtemp(join(tmpdir(), 'neoflow-fault-replay-'));
  api = await startTestApi([], { NEOFLOW_TASK_QUEUE: taskQueue });
  client = automationsClient(api.url, (await issueKey(api.database.orm)).key);
  await startWorker();
});
afterAll(async () => {
  await Promise.allSettled(workers.map((worker) => worker.stop()));
  await api?.close();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

describe('fault: kill -9 of the worker mid-replay', () => {
  it('fires each of the five transfers exactly once after the restart; a second replay meanwhile is refused', async () => {
    const neo = createNeoRpc(inject('neoRpcUrl'));
    const recipient = new wallet.Account(wallet.generatePrivateKey()).address;
    const functionId = await client.deploy('module.exports = async (c) => c.params.trigger.txHash;');
    const id = await client.create({
      name: 'replayed through a crash',
      status: 'inactive',
      trigger: { type: 'blockchain', scriptHash: gasHash, event: 'Transfer', filter: { to: recipient } },
      action: { type: 'function', functionId },
    });
    // Blocks before the transfers too, so that the replay is still running when it is killed.
    const fromBlock = Math.max(0, (await neo.getBlockCount()) - 10);
    const sent: string[] = [];
    for (let amount = 1n; amount <= 5n; amount++) {
      sent.push(await fundFromDevWallet(neo.url, inject('devWallet'), recipient, amount));
    }
    const toBlock = (await neo.getBlockCount()) - 1;

    const started = await client.call('POST', `/automations/${id}/replays`, { fromBlock, toBlock });
    expect(started.status, JSON.stringify(started.body)).toBe(202);
    const replayId = started.body.id as string;
    const second = await client.call('POST', `/automations/${id}/replays`, { fromBlock, toBlock, dryRun: true });
    expect(second.status).toBe(409);
    expect(second.body.error).toMatchObject({ code: 'REPLAY_IN_PROGRESS', details: { replayId } });

    const progress = () => client.call('GET', `/automations/${id}/replays/${replayId}`).then((got) => got.body);
    const midway = await until(progress, (replay) => replay.blocksDone > 0 || replay.status !== 'running', 60_000, 50);
    expect(midway.status).toBe('running');
    const killed = workers.at(-1)!;
    killed.process.child.kill('SIGKILL');
    expect(await killed.process.exited).toBe('SIGKILL');
    const atKill = await progress();
    expect(atKill.status).toBe('running');
    expect(atKill.blocksDone).toBeLessThan(atKill.blocksTotal);
    await startWorker();

    const ended = await until(progress, (replay) => replay.status !== 'running', 120_000);
    expect(ended).toMatchObject({ status: 'completed', matchCount: 5, runsStarted: 5 });
    const runs = await until(
      () => client.runs(id),
      (all) => all.length >= 5 && settled(all),
      120_000,
    );
    // Late duplicates would show up here.
    await sleep(3_000);
    const after: Loose[] = await client.runs(id);
    console.log(`[fault-replay] killed at block ${atKill.blocksDone as number} of ${atKill.blocksTotal as number}`);
    expect(after.map((run) => run.trigger.txHash as string).sort()).toEqual([...sent].sort());
    expect(runs.every((run) => run.status === 'success')).toBe(true);
    const executions = await client.call('GET', `/functions/${functionId}/executions?limit=100`);
    expect(executions.body.pagination?.total).toBe(5);
  }, 300_000);
});

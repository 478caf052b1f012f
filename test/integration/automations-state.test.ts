import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sc, wallet } from '@cityofzion/neon-js';
import { keySender } from '../../src/chain/transaction.ts';
import { localSigningKey } from '../../src/signers/local-key.ts';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createNeoRpc } from '../../src/chain/rpc.ts';
import { fundFromDevWallet } from '../../src/stack/dev-funder.ts';
import { startTestApi, type TestApi } from '../support/api.ts';
import { automationsClient, gasHash, settled, type Loose } from '../support/automations.ts';
import { callContract } from '../support/contracts.ts';
import { issueKey } from '../support/keys.ts';
import { until } from '../support/polling.ts';
import { evaluatedAt as evaluatedAtMark } from '../support/state-marks.ts';
import { testWorkerEnv } from '../support/temporal.ts';
import { startWorkerProcess, type WorkerProcess } from '../support/worker-process.ts';
import { closeServer } from '../support/close-server.ts';

// State-threshold triggers on the dev chain: the block follower reads GAS balances at the head.
// The worker reaches the node through a proxy that counts its `invokefunction` calls.

const gas = 10n ** 8n;
const neo = () => createNeoRpc(inject('neoRpcUrl'));

let api: TestApi;
let client: ReturnType<typeof automationsClient>;
let scratch: string;
let taskQueue: string;
let proxy: Awaited<ReturnType<typeof countingProxy>>;
let worker: WorkerProcess | undefined;
let workerCount = 0;

const startWorker = async () => {
  worker = await startWorkerProcess(
    api.database.url,
    taskQueue,
    join(scratch, 'data'),
    join(scratch, `worker-${++workerCount}.log`),
    testWorkerEnv(api.database.url, { NEO_RPC_URL: proxy.url }),
  );
};

const killWorker = async () => {
  worker!.process.child.kill('SIGKILL');
  expect(await worker!.process.exited).toBe('SIGKILL');
  worker = undefined;
};

beforeAll(async () => {
  taskQueue = `state-${randomBytes(4).toString('hex')}`;
  scratch = await mkdtemp(join(tmpdir(), 'neoflow-state-'));
  proxy = await countingProxy(inject('neoRpcUrl'));
  api = await startTestApi([], { NEOFLOW_TASK_QUEUE: taskQueue });
  client = automationsClient(api.url, (await issueKey(api.database.orm)).key);
  await startWorker();
});
afterAll(async () => {
  await worker?.stop();
  await api?.close();
  await proxy?.close();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

/** A state trigger on the GAS balance of `address`, `condition` `value` (fractions). */
const balanceTrigger = (address: string, condition: string, value?: bigint) => ({
  type: 'state',
  scriptHash: gasHash,
  operation: 'balanceOf',
  args: [{ type: 'Hash160', value: address }],
  condition,
  ...(value === undefined ? {} : { value: String(value) }),
});

const sql = () => api.database.orm.em.fork().getConnection();

const evaluatedAt = (automationId: string, block: number) =>
  evaluatedAtMark(api.database.orm, automationId, block, 90_000);

/** The latest block's index. */
const head = async () => (await neo().getBlockCount()) - 1;

const endedRuns = (id: string, count: number) =>
  until(
    () => client.runs(id),
    (runs) => runs.length >= count && settled(runs),
    90_000,
  );

/** The runs of `id` after the follower evaluated it past the chain's current head. */
const runsOnceSeen = async (id: string) => {
  await evaluatedAt(id, (await head()) + 1);
  return client.runs(id);
};

describe('creating a state trigger', () => {
  const holder = 'NXV7ZhHiyM1aHXwpVsRZC6BwNFP2jghXAq';
  const create = async (trigger: Record<string, unknown>) =>
    client.call('POST', '/automations', {
      name: 'state',
      status: 'inactive',
      trigger: { ...balanceTrigger(holder, 'above', 1n), ...trigger },
      action: { type: 'function', functionId: await client.deploy('module.exports = async () => 1;') },
    });

  it('answers it with its defaults, and lists it by trigger type', async () => {
    const created = await create({ path: '0', everyBlocks: 10 });
    expect(created.status).toBe(201);
    expect(created.body.trigger).toEqual({ ...balanceTrigger(holder, 'above', 1n), path: '0', everyBlocks: 10 });
    const listed = await client.call('GET', '/automations?triggerType=state');
    expect(listed.body.automations.map((item: Loose) => item.id as string)).toContain(created.body.id);
  });

  it.each([
    ['a threshold condition without value', { value: undefined }, 'trigger.value'],
    ['changed with a value', { condition: 'changed', value: '1' }, 'trigger.value'],
    ['a value that is no whole number', { value: '1.5' }, 'trigger.value'],
    ['a value beyond 256 bits', { value: (2n ** 255n).toString() }, 'trigger.value'],
    ['everyBlocks beyond 1000', { everyBlocks: 1001 }, 'trigger.everyBlocks'],
    ['a path that is no list of indices', { path: 'balance' }, 'trigger.path'],
    ['a bad argument', { args: [{ type: 'Hash160', value: '0x12' }] }, 'trigger.args.0.value'],
    [
      'arguments over 4,096 bytes as JSON',
      { args: Array.from({ length: 16 }, () => ({ type: 'String', value: 'x'.repeat(300) })) },
      'trigger.args',
    ],
    ['an unknown condition', { condition: 'crosses' }, 'trigger.condition'],
  ])('refuses %s with 400 naming the field', async (_label, invalid, field) => {
    const response = await create(invalid);
    expect(response.status).toBe(400);
    expect(response.body.error.details.field).toBe(field);
  });
});

describe("an account's state triggers", () => {
  it('are at most 20: one more is a 409, created or made by a PATCH, and another account is not counted', async () => {
    const own = automationsClient(api.url, (await issueKey(api.database.orm)).key);
    const functionId = await own.deploy('module.exports = async () => 1;');
    const body = (trigger: Record<string, unknown>) => ({
      name: 'capped',
      status: 'inactive',
      trigger,
      action: { type: 'function', functionId },
    });
    const holder = new wallet.Account(wallet.generatePrivateKey()).address;
    const created = await Promise.all(
      Array.from({ length: 21 }, () => own.call('POST', '/automations', body(balanceTrigger(holder, 'above', 1n)))),
    );
    expect(created.map((response) => response.status).sort()).toEqual([...Array(20).fill(201), 409]);
    const refused = created.find((response) => response.status === 409)!;
    expect(refused.body.error).toMatchObject({
      code: 'AUTOMATION_LIMIT_REACHED',
      details: { limit: 20, triggerType: 'state' },
    });
    const schedule = await own.call('POST', '/automations', body({ type: 'schedule', cron: '0 0 0 1 1 *' }));
    expect(schedule.status).toBe(201);
    const patched = await own.call('PATCH', `/automations/${schedule.body.id}`, {
      trigger: balanceTrigger(holder, 'above', 1n),
    });
    expect(patched.status).toBe(409);
    // A state trigger changed for another is not counted twice.
    const kept = created.find((response) => response.status === 201)!;
    const changed = await own.call('PATCH', `/automations/${kept.body.id}`, {
      trigger: balanceTrigger(holder, 'below', 1n),
    });
    expect(changed.status).toBe(200);
    const elsewhere = await client.call('POST', '/automations', {
      ...body(balanceTrigger(holder, 'above', 1n)),
      action: { type: 'function', functionId: await client.deploy('module.exports = async () => 1;') },
    });
    expect(elsewhere.status).toBe(201);
  });
});

describe('a state trigger on a GAS balance above a value', () => {
  it('fires once per crossing: not while above, again after below and above, across worker restarts', async () => {
    const holder = new wallet.Account(wallet.generatePrivateKey());
    const sender = keySender(localSigningKey(holder.privateKey));
    const fund = (amount: bigint) =>
      fundFromDevWallet(inject('neoRpcUrl'), inject('devWallet'), holder.address, amount);
    await fund(20n * gas);
    const threshold = 25n * gas;
    const functionId = await client.deploy('module.exports = async (context) => context.params.trigger;');
    const id = await client.create({
      name: 'balance above 25 GAS',
      trigger: balanceTrigger(holder.address, 'above', threshold),
      action: { type: 'function', functionId },
    });
    await evaluatedAt(id, (await head()) + 1);
    expect(await client.runs(id)).toEqual([]);

    // Crossing up: one run, its payload the balance and the block.
    await fund(10n * gas);
    const [fired] = await endedRuns(id, 1);
    expect(fired).toMatchObject({
      status: 'success',
      trigger: {
        type: 'state',
        scriptHash: gasHash,
        operation: 'balanceOf',
        value: String(30n * gas),
        blockIndex: expect.any(Number),
        blockHash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
      },
    });
    expect(fired!.trigger.blockHash).toBe(await neo().getBlockHash(fired!.trigger.blockIndex as number));

    // Still above, more so: nothing more, nor after a kill -9 of the worker and a restart.
    await fund(1n * gas);
    expect(await runsOnceSeen(id)).toHaveLength(1);
    await killWorker();
    await startWorker();
    expect(await runsOnceSeen(id)).toHaveLength(1);

    // Below (re-armed), then above again while no worker runs: the restarted one fires it, once.
    const away = new wallet.Account(wallet.generatePrivateKey());
    await callContract(neo(), sender, gasHash, 'transfer', [
      sc.ContractParam.hash160(holder.address),
      sc.ContractParam.hash160(away.address),
      sc.ContractParam.integer((10n * gas).toString()),
      sc.ContractParam.any(null),
    ]);
    expect(await runsOnceSeen(id)).toHaveLength(1);
    await killWorker();
    await fund(10n * gas);
    await startWorker();
    const runs = await endedRuns(id, 2);
    expect(runs.map((run: Loose): unknown[] => [run.status, run.trigger.type])).toEqual([
      ['success', 'state'],
      ['success', 'state'],
    ]);
    expect(BigInt(runs[0]!.trigger.value as string)).toBeGreaterThan(threshold);
    expect(await runsOnceSeen(id)).toHaveLength(2);
  }, 360_000);
});

describe('a state trigger whose read fails', () => {
  it('fails one run with InputQuarantined per streak, while the follower goes on and others fire', async () => {
    const functionId = await client.deploy('module.exports = async () => 1;');
    const broken = await client.create({
      name: 'no such contract',
      trigger: {
        ...balanceTrigger(new wallet.Account(wallet.generatePrivateKey()).address, 'changed'),
        scriptHash: `0x${'11'.repeat(20)}`,
      },
      action: { type: 'function', functionId },
    });
    const holder = new wallet.Account(wallet.generatePrivateKey()).address;
    const fine = await client.create({
      name: 'holder above 1 GAS',
      trigger: balanceTrigger(holder, 'above', gas),
      action: { type: 'function', functionId },
    });
    await evaluatedAt(fine, (await head()) + 1);
    await fundFromDevWallet(inject('neoRpcUrl'), inject('devWallet'), holder, 2n * gas);
    const [fired] = await endedRuns(fine, 1);
    expect(fired).toMatchObject({ status: 'success', trigger: { type: 'state', value: String(2n * gas) } });

    const [first] = await runsOnceSeen(broken);
    await evaluatedAt(broken, (await head()) + 3);
    const runs = await client.runs(broken);
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({
      id: first!.id,
      status: 'failure',
      error: {
        name: 'InputQuarantined',
        message: expect.stringMatching(
          /^The read of balanceOf at block \d+ could not be processed for this automation: /,
        ),
      },
    });
  }, 120_000);
});

describe('100 automations of 5 accounts on the same read', () => {
  it('make one invokefunction per evaluated block', async () => {
    const watched = new wallet.Account(wallet.generatePrivateKey());
    const ids: string[] = [];
    // 20 state triggers an account at most: 5 accounts, 2 batches of 10 each.
    const owners = await Promise.all(
      Array.from({ length: 5 }, async () => {
        const owner = automationsClient(api.url, (await issueKey(api.database.orm)).key);
        return { owner, functionId: await owner.deploy('module.exports = async () => 1;') };
      }),
    );
    for (let batch = 0; batch < 10; batch++) {
      const { owner, functionId } = owners[Math.floor(batch / 2)]!;
      ids.push(
        ...(await Promise.all(
          Array.from({ length: 10 }, (_, index) =>
            owner.create({
              name: `never ${batch * 10 + index}`,
              trigger: balanceTrigger(watched.address, 'above', 10n ** 30n),
              action: { type: 'function', functionId },
            }),
          ),
        )),
      );
    }
    const allEvaluatedAt = (block: number) =>
      until(
        async () => {
          const [row] = await sql().execute<{ marked: string; first: number | null; last: number | null }[]>(
            `select count(*) as "marked", min("evaluated_block") as "first", max("evaluated_block") as "last"
              from "state_trigger_marks" where "automation_id" in (?)`,
            [ids],
          );
          return { marked: Number(row!.marked), first: row!.first ?? -1, last: row!.last ?? -1 };
        },
        ({ marked, first }) => marked === ids.length && first >= block,
        90_000,
      );
    const start = await allEvaluatedAt((await head()) + 1);
    // All 100 evaluated at the same block each time, so their windows line up.
    expect(start.first).toBe(start.last);
    const readsBefore = proxy.invocationsOf(watched.address);
    const end = await allEvaluatedAt(start.last + 5);
    const reads = proxy.invocationsOf(watched.address) - readsBefore;
    const blocks = end.last - start.last;
    expect(blocks).toBeGreaterThanOrEqual(5);
    // One read per evaluated block (a round retried reads its block again: none here).
    expect(reads).toBe(blocks);
  }, 240_000);
});

/** A JSON-RPC proxy to the node at `target` that counts the `invokefunction` calls by their params. */
async function countingProxy(target: string) {
  const invocations: string[] = [];
  const server = createServer((request, response) => {
    void (async () => {
      const body = await bodyOf(request);
      const parsed = JSON.parse(body) as { method?: string; params?: unknown };
      if (parsed.method === 'invokefunction') invocations.push(JSON.stringify(parsed.params));
      const answer = await fetch(target, { method: 'POST', body, headers: { 'content-type': 'application/json' } });
      response.writeHead(answer.status, { 'content-type': 'application/json' }).end(await answer.text());
    })().catch(() => response.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    /** The calls so far that read something of `address` (its script hash in either byte order). */
    invocationsOf(address: string) {
      const hash = wallet.getScriptHashFromAddress(address);
      const reversed = Buffer.from(hash, 'hex').reverse().toString('hex');
      return invocations.filter((params) => params.includes(hash) || params.includes(reversed)).length;
    },
    close: () => closeServer(server),
  };
}

async function bodyOf(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

import { rm } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { wallet } from '@cityofzion/neon-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNeoRpc } from '../../src/chain/rpc.ts';
import { fundFromDevWallet } from '../../src/stack/dev-funder.ts';
import { automationsClient, gasHash, type Loose } from '../support/automations.ts';
import { startFaultStack, type FaultStack, type Restartable } from '../support/fault-stack.ts';
import { issueKey } from '../support/keys.ts';
import { until } from '../support/polling.ts';
import { scratchDataDir } from '../support/scratch-services.ts';

let scratch: string;
let stack: FaultStack;
let key: string;
let client: ReturnType<typeof automationsClient>;

beforeAll(async () => {
  scratch = await scratchDataDir('neoflow-dependency-faults-');
  stack = await startFaultStack(scratch);
  ({ key } = await issueKey(stack.orm));
  client = automationsClient(stack.api.url, key);
});
afterAll(async () => {
  await stack?.close();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

/** How a request fared: what the client saw, within a bound no hang can hide behind. */
interface Answer {
  status: number;
  code?: string;
  message?: string;
  id?: string;
}

const requestTimeoutMs = 20_000;

async function ask(method: string, path: string, body: unknown): Promise<Answer> {
  try {
    const response = await fetch(`${stack.api.url}/v1${path}`, {
      method,
      headers: { 'X-API-Key': key, 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(requestTimeoutMs),
    });
    const answer = (await response.json()) as Loose;
    return {
      status: response.status,
      code: answer.error?.code as string | undefined,
      message: answer.error?.message as string | undefined,
      id: (answer.data?.execution?.id ?? answer.run?.id) as string | undefined,
    };
  } catch (error) {
    return { status: 0, code: error instanceof Error ? error.name : String(error) };
  }
}

/**
 * Async invokes and manual fires, two at a time, until `stop` says so: every answer is kept, so that
 * each acknowledged one can be followed to its end.
 */
/** A request of the burst and how it was answered. */
interface Sent {
  kind: 'execution' | 'run';
  answer: Answer;
}

function burst(functionId: string, automationId: string) {
  const answers: Sent[] = [];
  let stopped = false;
  const lane = async (kind: 'execution' | 'run') => {
    while (!stopped) {
      const answer =
        kind === 'execution'
          ? await ask('POST', `/functions/${functionId}/invoke`, { params: {}, async: true })
          : await ask('POST', `/automations/${automationId}/trigger`, {});
      answers.push({ kind, answer });
      // A refused request comes back at once: pace the lane so the outage is sampled, not flooded.
      if (answer.status !== 202) await sleep(200);
    }
  };
  const lanes = Promise.all([lane('execution'), lane('run')]);
  return {
    answers,
    stop: async () => {
      stopped = true;
      await lanes;
    },
  };
}

async function followerCursor(): Promise<number> {
  const [row] = await stack.orm.em
    .fork()
    .getConnection()
    .execute<{ next_index: number }[]>(`select next_index from "block_cursors"`);
  return row?.next_index ?? 0;
}

async function statusesOf(kind: 'execution' | 'run', ids: string[]): Promise<string[]> {
  const table = kind === 'execution' ? 'executions' : 'automation_runs';
  const rows = await stack.orm.em
    .fork()
    .getConnection()
    .execute<{ status: string; error: unknown }[]>(
      `select status, error from "${table}" where id in (${ids.map(() => '?').join(', ')})`,
      ids,
    );
  expect(rows, `${kind} rows stored once each`).toHaveLength(ids.length);
  for (const row of rows) if (row.error) console.log(`[faults] ${kind} ${row.status}: ${JSON.stringify(row.error)}`);
  return rows.map((row) => row.status);
}

/**
 * A dependency goes down mid-burst and comes back: while it is down the API answers 202 or a clear
 * 503, never a 500 or a hang; afterwards every acknowledged execution and run ends, once.
 */
async function burstThrough(
  dependency: Restartable,
  downMs: number,
  whileDown: (ids: { functionId: string; automationId: string }) => Promise<Sent[]> = async () => [],
) {
  const functionId = await client.deploy('module.exports = async () => 42;');
  const automationId = await client.create({
    name: `fired through a fault ${Date.now()}`,
    status: 'inactive',
    trigger: { type: 'schedule', cron: '0 0 1 1 *' },
    action: { type: 'function', functionId },
  });
  const load = burst(functionId, automationId);
  await until(
    async () => load.answers.filter(({ answer }) => answer.status === 202).length,
    (count) => count >= 10,
    60_000,
  );
  await dependency.stop();
  const outage = sleep(downMs);
  load.answers.push(...(await whileDown({ functionId, automationId })));
  await outage;
  await dependency.start();
  const afterRestart = load.answers.length;
  await until(
    async () => load.answers.slice(afterRestart).filter(({ answer }) => answer.status === 202).length,
    (count) => count >= 10,
    120_000,
  );
  await load.stop();

  const refused = load.answers.filter(({ answer }) => answer.status !== 202);
  for (const { kind, answer } of refused)
    expect(answer, `a refused ${kind} while a dependency is down`).toMatchObject({ status: 503 });
  const acknowledged = (kind: 'execution' | 'run') =>
    load.answers.filter((entry) => entry.kind === kind && entry.answer.status === 202).map(({ answer }) => answer.id!);
  for (const kind of ['execution', 'run'] as const) {
    const ids = acknowledged(kind);
    expect(new Set(ids).size, `${kind} ids are distinct`).toBe(ids.length);
    const ended = await until(
      () => statusesOf(kind, ids),
      (statuses) => statuses.every((status) => status !== 'running' && status !== 'pending'),
      180_000,
      1000,
    );
    expect(new Set(ended), `every acknowledged ${kind} ended well`).toEqual(
      new Set([kind === 'execution' ? 'completed' : 'success']),
    );
  }
  return { acknowledged: acknowledged('execution').length + acknowledged('run').length, refused: refused.length };
}

describe('faults of the dependencies (real processes, stopped and started on their data)', () => {
  it('PostgreSQL restarted during a burst: every acknowledged invoke and fire ends once, refusals are 503', async () => {
    const counts = await burstThrough(stack.postgres, 10_000);
    console.log(`[faults] postgres: ${counts.acknowledged} acknowledged, ${counts.refused} refused with 503`);
  });

  it('Temporal restarted during a burst: every acknowledged invoke and fire ends once, refusals are 503', async () => {
    const counts = await burstThrough(stack.temporal, 10_000, async ({ functionId, automationId }) => {
      // The row is the request's commitment: stored while Temporal is away, it is accepted and
      // the reconciler starts it (a 503 would have the client send it again, and run it twice).
      const fired = await ask('POST', `/automations/${automationId}/trigger`, {});
      const invoked = await ask('POST', `/functions/${functionId}/invoke`, { params: {}, async: true });
      expect([fired.status, invoked.status], JSON.stringify([fired, invoked])).toEqual([202, 202]);
      return [
        { kind: 'run', answer: fired },
        { kind: 'execution', answer: invoked },
      ];
    });
    console.log(`[faults] temporal: ${counts.acknowledged} acknowledged, ${counts.refused} refused with 503`);
  });

  it('the Neo node stopped for 60 s while transfers are watched: each fires once, no block skipped', async () => {
    const recipient = new wallet.Account(wallet.generatePrivateKey()).address;
    const functionId = await client.deploy('module.exports = async (c) => c.params.trigger.txHash;');
    const automationId = await client.create({
      name: 'watch through a node outage',
      trigger: { type: 'blockchain', scriptHash: gasHash, event: 'Transfer', filter: { to: recipient } },
      action: { type: 'function', functionId },
    });
    const sent: string[] = [];
    const send = async (count: number) => {
      for (let i = 0; i < count; i++)
        sent.push(await fundFromDevWallet(stack.neoRpcUrl, stack.devWallet, recipient, BigInt(sent.length + 1)));
    };
    await send(3);
    await stack.neo.stop();
    const health = await fetch(`${stack.api.url}/v1/health`, { signal: AbortSignal.timeout(requestTimeoutMs) });
    expect(health.status, 'health says the node is down').toBe(503);
    expect(((await health.json()) as Loose).neo.status).toBe('down');
    await sleep(60_000);
    await stack.neo.start();
    await send(3);
    // The cursor moves with the runs it fired: once it is past the block the last transfer is in, every
    // run those blocks fire is recorded, and any duplicate would be too.
    const lastBlock = (await createNeoRpc(stack.neoRpcUrl).getBlockCount()) - 1;
    await until(
      () => followerCursor(),
      (next) => next > lastBlock,
      180_000,
      1000,
    );
    const runs = await until(
      () => client.runs(automationId),
      (listed) => listed.every((run) => run.status !== 'running'),
      60_000,
      1000,
    );
    expect(runs.map((run) => String(run.status))).toEqual(sent.map(() => 'success'));
    const fired = runs.map((run) => String(run.trigger.txHash)).sort();
    expect(fired, 'every transfer fired once, none skipped').toEqual([...sent].sort());
  });
});

/**
 * What the automation benchmarks measure runs with: the chain's block times, a GAS transfer a
 * block, the runs recorded in PostgreSQL, fire delays and watcher lags from them, and automations
 * created and deactivated over the API.
 */
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { CONST, wallet } from '@cityofzion/neon-js';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { NeoRpc } from '../src/chain/rpc.ts';
import { testAndSign } from '../src/chain/transaction.ts';
import { devCommittee } from '../src/stack/dev-funder.ts';
import type { DevWallet } from '../src/stack/neo-devnet.ts';
import { until } from '../test/support/polling.ts';
import { progress, runConcurrent, summarise, type Latencies } from './measure.ts';
import { elapsed, type apiClient } from './scratch-stack.ts';

/** The parts of a benchmark stack these read: its database, neo-go itself and the dev wallet. */
export interface RunsStack {
  orm: MikroORM;
  /** neo-go itself, for the bench's own calls (not counted). */
  neo: NeoRpc;
  devWallet: DevWallet;
}

export const GAS = `0x${CONST.NATIVE_CONTRACT_HASH.GasToken}`;

/** A JSON-RPC call straight to neo-go (not through the worker's counting proxy). */
async function rawRpc<T>(url: string, method: string, params: unknown[]): Promise<T> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const body = (await response.json()) as { result?: T; error?: { message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result as T;
}

/** Block index → header time (ms), fetched once per block. */
export function blockClock(rpcUrl: string) {
  const times = new Map<number, number>();
  const timeOf = async (index: number) => {
    let time = times.get(index);
    if (time === undefined) {
      time = (await rawRpc<{ time: number }>(rpcUrl, 'getblock', [index, 1])).time;
      times.set(index, time);
    }
    return time;
  };
  return {
    timeOf,
    /** Loads the times of blocks [from, to) so that heightAt can answer for that span. */
    load: (from: number, to: number) =>
      runConcurrent(Math.max(0, to - from), 8, (i) => timeOf(from + i).then(() => {})),
    /** The index of the newest block persisted at `time` (among those loaded). */
    heightAt(time: number) {
      let height = -1;
      for (const [index, blockTime] of times) if (blockTime <= time && index > height) height = index;
      return height;
    },
  };
}

/** Sends GAS from the dev wallet's committee account to `recipient`, one transfer per new block. */
export function startTransfers(stack: RunsStack, recipient: string) {
  const committee = devCommittee(stack.devWallet);
  let stopped = false;
  let sent = 0;
  let failed = 0;
  let lastError = '';
  const send = async (amount: number) => {
    const signed = await testAndSign(stack.neo, committee.transferScript(recipient, BigInt(amount)), committee.sender);
    if ('fault' in signed) throw new Error(`transfer would fault: ${signed.fault}`);
    await stack.neo.sendRawTransaction(signed);
  };
  const loop = (async () => {
    let last = await stack.neo.getBlockCount();
    while (!stopped) {
      const count = await stack.neo.getBlockCount().catch(() => last);
      if (count > last) {
        last = count;
        try {
          await send(100_000 + sent);
          sent++;
        } catch (error) {
          failed++;
          lastError = error instanceof Error ? error.message : String(error);
        }
      }
      await sleep(100);
    }
  })();
  return {
    async stop() {
      stopped = true;
      await loop;
      return { sent, failed, lastError };
    },
  };
}

export const randomAddress = () => wallet.getAddressFromScriptHash(randomBytes(20).toString('hex'));

export interface RunRow {
  automation_id: string;
  trigger: { scheduledAt?: string; blockIndex?: number };
  /** Epoch milliseconds (with microseconds). */
  recorded_at: number;
  exec_started: number | null;
  exec_status: string | null;
  logs: { timestamp: string }[] | null;
}

export async function runsOf(stack: RunsStack, automationIds: string[]): Promise<RunRow[]> {
  if (automationIds.length === 0) return [];
  return stack.orm.em.getConnection().execute<RunRow[]>(
    `select r.automation_id, r.trigger, e.logs, e.status as exec_status,
            (extract(epoch from r.started_at) * 1000)::float8 as recorded_at,
            (extract(epoch from e.started_at) * 1000)::float8 as exec_started
       from automation_runs r left join executions e on e.id = r.execution_id
      where r.automation_id in (?)`,
    [automationIds],
  );
}

/**
 * The runs of `automationIds` that `counted` keeps, once each one's execution has ended (so that its
 * log lines are written), or after `timeoutMs`.
 */
export function untilStarted(
  stack: RunsStack,
  automationIds: string[],
  counted: (row: RunRow) => boolean = () => true,
  timeoutMs = 60_000,
) {
  return until(
    async () => (await runsOf(stack, automationIds)).filter(counted),
    (rows) => rows.every((row) => row.exec_status !== null && row.exec_status !== 'running'),
    timeoutMs,
    500,
  );
}

const codeStart = (row: RunRow) => (row.logs?.[0] ? Date.parse(row.logs[0].timestamp) : null);

/** Delays from each fire's scheduled time to its run, its execution and its code's first log line. */
export interface FireDelays {
  toRecorded: Latencies;
  toExecution: Latencies;
  toCode: Latencies;
  fires: number;
  unstarted: number;
}

export function fireDelays(inSpan: RunRow[]): FireDelays {
  const scheduled = (row: RunRow) => Date.parse(row.trigger.scheduledAt!);
  const started = inSpan.filter((row) => row.exec_started !== null);
  return {
    toRecorded: summarise(inSpan.map((row) => row.recorded_at - scheduled(row))),
    toExecution: summarise(started.map((row) => row.exec_started! - scheduled(row))),
    toCode: summarise(started.flatMap((row) => (codeStart(row) === null ? [] : [codeStart(row)! - scheduled(row)]))),
    fires: inSpan.length,
    unstarted: inSpan.length - started.length,
  };
}

export interface WatcherLags {
  toRecordedMs: Latencies;
  toExecutionMs: Latencies;
  blocks: Latencies;
  events: number;
  unstarted: number;
}

export async function watcherLags(
  stack: RunsStack,
  clock: ReturnType<typeof blockClock>,
  rows: RunRow[],
): Promise<WatcherLags> {
  const started = rows.filter((row) => row.exec_started !== null);
  if (started.length > 0) {
    const indexes = started.map((row) => row.trigger.blockIndex!);
    const height = await stack.neo.getBlockCount();
    await clock.load(Math.min(...indexes), height);
  }
  const ms: number[] = [];
  const blocks: number[] = [];
  const recorded: number[] = [];
  for (const row of rows) {
    const index = row.trigger.blockIndex!;
    const blockTime = await clock.timeOf(index);
    recorded.push(row.recorded_at - blockTime);
    if (!row.exec_started) continue;
    ms.push(row.exec_started - blockTime);
    blocks.push(clock.heightAt(row.exec_started) - index);
  }
  return {
    toRecordedMs: summarise(recorded),
    toExecutionMs: summarise(ms),
    blocks: summarise(blocks),
    events: rows.length,
    unstarted: rows.length - started.length,
  };
}

export type Trigger = Record<string, unknown>;

const functionCode = "module.exports = async (context) => { context.log.info('start'); return { ok: true }; };";

/** Deploys the function every automation of a benchmark runs and warms the worker up (its first workflows and isolates). */
export async function deployBenchAction(call: Creator['call']): Promise<Creator['action']> {
  const created = await call('POST', '/functions', { name: 'bench-action', code: functionCode, runtime: 'node18' });
  if (created.status !== 201) throw new Error(`deploy answered ${created.status}: ${JSON.stringify(created.body)}`);
  // The functions area answers an envelope, the automations area bare bodies.
  const functionId = (created.body as { data: { id: string } }).data.id;
  for (let i = 0; i < 5; i++) {
    const invoked = await call('POST', `/functions/${functionId}/invoke`, { params: {} });
    if (invoked.status !== 200) throw new Error(`warm-up invoke answered ${invoked.status}`);
  }
  return { type: 'function', functionId };
}

/** Watches the bench's transfers to `recipient`: it matches every one. */
export const transfersTo = (recipient: string) => (): Trigger => ({
  type: 'blockchain',
  scriptHash: GAS,
  event: 'Transfer',
  filter: { to: recipient },
});

/** The i-th of the blockchain automations that watch GAS but never match the bench's transfers to `recipient`. */
export const nonMatchingWatcher =
  (recipient: string) =>
  (i: number): Trigger => {
    const kinds = [
      { event: 'Transfer', filter: { to: randomAddress() } },
      { event: 'Transfer', filter: { from: randomAddress() } },
      // `to` matches the bench's transfers, `amount` never does.
      { event: 'Transfer', filter: { to: recipient, amount: '7' } },
      { filter: { from: randomAddress() } },
    ];
    return { type: 'blockchain', scriptHash: GAS, ...kinds[i % kinds.length]! };
  };

/** What a batch of automations runs and who creates it: the API's caller and the bench's function. */
export interface Creator {
  call: ReturnType<typeof apiClient>;
  action: { type: 'function'; functionId: string };
  concurrency: number;
}

/** `count` automations named `<name>-<i>` for i from `from`, each triggered by `trigger(i)`. */
export interface Batch {
  name: string;
  count: number;
  trigger: (i: number) => Trigger;
  from?: number;
}

/** Creates `batch` over the API, `creator.concurrency` at a time; answers the ids in batch order and the creates per second. */
export async function createAutomations(creator: Creator, label: string, batch: Batch) {
  const from = batch.from ?? 0;
  const ids = new Array<string>(batch.count);
  const began = performance.now();
  const { elapsedMs } = await runConcurrent(batch.count, creator.concurrency, async (k) => {
    const body = { name: `${batch.name}-${from + k}`, trigger: batch.trigger(from + k), action: creator.action };
    const answer = await creator.call('POST', '/automations', body);
    if (answer.status !== 201) throw new Error(`create answered ${answer.status}: ${JSON.stringify(answer.body)}`);
    ids[k] = (answer.body as { id: string }).id;
  });
  const perSecond = batch.count / (elapsedMs / 1000);
  if (batch.count > 0) progress(`created ${batch.count} ${label} in ${elapsed(began)} (${perSecond.toFixed(1)}/s)`);
  return { ids, perSecond };
}

export function deactivate(creator: Creator, ids: string[]) {
  return runConcurrent(ids.length, creator.concurrency, async (i) => {
    const answer = await creator.call('PATCH', `/automations/${ids[i]}`, { status: 'inactive' });
    if (answer.status !== 200) throw new Error(`deactivate answered ${answer.status}`);
  });
}

/**
 * `npm run bench:automations`: how promptly automations fire, and what 1,000 of them cost one
 * worker, against the real stack (embedded PostgreSQL, Temporal dev server, neo-go devnet with
 * 1-second blocks, the API in-process, ONE worker as a child process whose Neo RPC goes through a
 * counting proxy). A benchmark, not a test: it prints figures and PASS/FAIL per target, and exits
 * 0 either way.
 */
import { randomBytes } from 'node:crypto';
import { loadavg } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { CONST, wallet } from '@cityofzion/neon-js';
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
import { testAndSign } from '../src/chain/transaction.ts';
import { devCommittee } from '../src/stack/dev-funder.ts';
import { until } from '../test/support/polling.ts';
import { startPriceServer } from '../test/support/price-server.ts';
import { startAutomationsStack, type AutomationsBenchStack } from './automations-stack.ts';
import { countFrom, ms, progress, printReport, runBench, runConcurrent, summarise, type Latencies } from './measure.ts';
import { sampleMachine, sampleProcess, type MachineSample, type ProcessSample } from './proc.ts';
import { apiClient, elapsed } from './scratch-stack.ts';

const counts = {
  /** Phase 1: every-second schedules, for fireSeconds. */
  fireAutomations: countFrom('BENCH_FIRE_AUTOMATIONS', 5),
  fireSeconds: countFrom('BENCH_FIRE_SECONDS', 30),
  /** Phase 2: watchers of GAS transfers to the bench's recipient, one transfer a block. */
  watchers: countFrom('BENCH_WATCHERS', 3),
  watchSeconds: countFrom('BENCH_WATCH_SECONDS', 30),
  /** Phase 3: the mixed set on one worker. */
  blockchain: countFrom('BENCH_BLOCKCHAIN', 400),
  schedules: countFrom('BENCH_SCHEDULES', 300),
  prices: countFrom('BENCH_PRICES', 300),
  /** Of the mixed set's blockchain automations, those that match the bench's transfers. */
  matching: countFrom('BENCH_MATCHING', 2),
  /** Each mixed schedule fires once per this many minutes; together they fire about schedules / (60 × it) per second. */
  scheduleEveryMinutes: countFrom('BENCH_SCHEDULE_EVERY_MINUTES', 5),
  pricePollSeconds: countFrom('BENCH_PRICE_POLL_SECONDS', 30),
  settleSeconds: countFrom('BENCH_SETTLE_SECONDS', 15),
  steadySeconds: countFrom('BENCH_STEADY_SECONDS', 60),
  /** RPC-independence windows: this many active non-matching blockchain automations each. */
  rpcSteps: (process.env.BENCH_RPC_STEPS ?? '0,100,1000').split(',').map(Number),
  rpcSeconds: countFrom('BENCH_RPC_SECONDS', 30),
  createConcurrency: countFrom('BENCH_CREATE_CONCURRENCY', 8),
};
/** Issue 9: fire delay p99 ≤ 1 s; the mixed set's worker CPU at most half of the 41.6 % measured before it. */
const targets = { fireDelayP99Ms: 1000, lagP99Blocks: 1, rpcGrowth: 0.1, mixedCpuPercent: 20.8 };

const functionCode = "module.exports = async (context) => { context.log.info('start'); return { ok: true }; };";
const GAS = `0x${CONST.NATIVE_CONTRACT_HASH.GasToken}`;

const load = () =>
  loadavg()
    .map((value) => value.toFixed(2))
    .join(' ');

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
function blockClock(rpcUrl: string) {
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
function startTransfers(stack: AutomationsBenchStack, recipient: string) {
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

type PriceServer = Awaited<ReturnType<typeof startPriceServer>>;

const randomAddress = () => wallet.getAddressFromScriptHash(randomBytes(20).toString('hex'));

interface RunRow {
  automation_id: string;
  trigger: { scheduledAt?: string; blockIndex?: number };
  /** Epoch milliseconds (with microseconds). */
  recorded_at: number;
  exec_started: number | null;
  exec_status: string | null;
  logs: { timestamp: string }[] | null;
}

async function runsOf(stack: AutomationsBenchStack, automationIds: string[]): Promise<RunRow[]> {
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
function untilStarted(
  stack: AutomationsBenchStack,
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

/** Set by Temporal on every workflow a schedule starts. */
const scheduledStartTime = defineSearchAttributeKey('TemporalScheduledStartTime', SearchAttributeType.DATETIME);

interface ScheduledStart {
  automationId: string;
  scheduledAt: number;
  startedAt: number;
  closedAt: number | null;
}

/** Every `scheduledFire` workflow Temporal's scheduler started for `automationIds`, from its visibility store. */
async function scheduledStarts(stack: AutomationsBenchStack, automationIds: string[]): Promise<ScheduledStart[]> {
  const starts: ScheduledStart[] = [];
  const ids = new Set(automationIds);
  for await (const workflow of stack.temporal.client.workflow.list({ query: `WorkflowType = 'scheduledFire'` })) {
    // A schedule names each workflow it starts `<workflow id>-<scheduled time>`.
    const automationId = /^(.*)-\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/.exec(workflow.workflowId)?.[1];
    const scheduled = workflow.typedSearchAttributes.get(scheduledStartTime);
    if (!automationId || !ids.has(automationId) || !scheduled) continue;
    starts.push({
      automationId,
      scheduledAt: scheduled.getTime(),
      startedAt: workflow.startTime.getTime(),
      closedAt: workflow.closeTime?.getTime() ?? null,
    });
  }
  return starts;
}

/**
 * The scheduler's delay (workflow start − scheduled time), and the same split by whether the
 * automation's previous fire was still running at the scheduled time (the overlap policy is SKIP).
 */
function schedulerDelays(starts: ScheduledStart[], from = 0, to = Number.POSITIVE_INFINITY) {
  const all: number[] = [];
  const afterRunning: number[] = [];
  const afterEnded: number[] = [];
  const byAutomation = Map.groupBy(starts, (start) => start.automationId);
  for (const fires of byAutomation.values()) {
    fires.sort((a, b) => a.scheduledAt - b.scheduledAt);
    fires.forEach((fire, k) => {
      if (fire.scheduledAt < from || fire.scheduledAt >= to) return;
      const delay = fire.startedAt - fire.scheduledAt;
      all.push(delay);
      const previous = fires[k - 1];
      if (!previous) return;
      const running = previous.closedAt === null || previous.closedAt > fire.scheduledAt;
      (running ? afterRunning : afterEnded).push(delay);
    });
  }
  return { all: summarise(all), afterRunning: summarise(afterRunning), afterEnded: summarise(afterEnded) };
}

/** Fires the schedules of `automationIds` skipped because the previous one still ran, and missed. */
async function skippedFires(stack: AutomationsBenchStack, automationIds: string[]) {
  let overlap = 0;
  let missed = 0;
  for (const id of automationIds) {
    const { info } = await stack.temporal.client.schedule.getHandle(id).describe();
    overlap += info.numActionsSkippedOverlap;
    missed += info.numActionsMissedCatchupWindow;
  }
  return { overlap, missed };
}

interface FireDelays {
  scheduler: ReturnType<typeof schedulerDelays>;
  toRecorded: Latencies;
  toExecution: Latencies;
  toCode: Latencies;
  fires: number;
  unstarted: number;
}

function fireDelays(inSpan: RunRow[], scheduler: FireDelays['scheduler']): FireDelays {
  const scheduled = (row: RunRow) => Date.parse(row.trigger.scheduledAt!);
  const started = inSpan.filter((row) => row.exec_started !== null);
  return {
    scheduler,
    toRecorded: summarise(inSpan.map((row) => row.recorded_at - scheduled(row))),
    toExecution: summarise(started.map((row) => row.exec_started! - scheduled(row))),
    toCode: summarise(started.flatMap((row) => (codeStart(row) === null ? [] : [codeStart(row)! - scheduled(row)]))),
    fires: inSpan.length,
    unstarted: inSpan.length - started.length,
  };
}

interface WatcherLags {
  toRecordedMs: Latencies;
  toExecutionMs: Latencies;
  blocks: Latencies;
  events: number;
  unstarted: number;
}

async function watcherLags(
  stack: AutomationsBenchStack,
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

interface Window {
  label: string;
  seconds: number;
  blocks: number;
  calls: Map<string, number>;
  worker: ProcessSample;
  machine: MachineSample;
  loadBefore: string;
  loadAfter: string;
  priceReads?: number;
}

async function measureWindow(stack: AutomationsBenchStack, label: string, seconds: number): Promise<Window> {
  const loadBefore = load();
  // Both ends just after a block appears, so that the window holds whole blocks and their reads.
  const heightBefore = await nextBlock(stack);
  const callsBefore = stack.workerRpc.snapshot();
  const began = performance.now();
  const sampler = sampleProcess(stack.worker.child.pid!);
  const machineSampler = sampleMachine();
  await sleep(seconds * 1000 - 500);
  const heightAfter = await nextBlock(stack);
  const worker = sampler.stop();
  const machine = machineSampler.stop();
  const callsAfter = stack.workerRpc.snapshot();
  const calls = new Map<string, number>();
  for (const [method, count] of callsAfter) {
    const delta = count - (callsBefore.get(method) ?? 0);
    if (delta > 0) calls.set(method, delta);
  }
  const window: Window = {
    label,
    seconds: (performance.now() - began) / 1000,
    blocks: heightAfter - heightBefore,
    calls,
    worker,
    machine,
    loadBefore,
    loadAfter: load(),
  };
  progress(`${label}: ${describeWindow(window)}`);
  return window;
}

/** The block count, read as soon as it grows. */
async function nextBlock(stack: AutomationsBenchStack) {
  const start = await stack.neo.getBlockCount();
  for (;;) {
    await sleep(20);
    const count = await stack.neo.getBlockCount();
    if (count > start) return count;
  }
}

const totalCalls = (window: Window) => [...window.calls.values()].reduce((sum, count) => sum + count, 0);
const perBlock = (window: Window) => totalCalls(window) / Math.max(1, window.blocks);
function describeWindow(window: Window) {
  const methods = methodsLine(window);
  const { cpuPercent, rssMeanMiB, rssMaxMiB } = window.worker;
  return (
    `${window.blocks} blocks in ${window.seconds.toFixed(1)} s, ${perBlock(window).toFixed(2)} rpc calls/block (${methods}); ` +
    `worker cpu ${cpuPercent.toFixed(1)}% of a core, rss ${rssMeanMiB.toFixed(0)} MiB mean / ${rssMaxMiB.toFixed(0)} max; ` +
    `machine ${window.machine.busyPercent.toFixed(0)}% busy, load ${window.loadBefore} → ${window.loadAfter}`
  );
}

type Trigger = Record<string, unknown>;

/** What every phase works with: the stack, its API, the block clock, the one action every automation runs. */
interface Bench {
  stack: AutomationsBenchStack;
  call: ReturnType<typeof apiClient>;
  clock: ReturnType<typeof blockClock>;
  action: { type: 'function'; functionId: string };
}

/** Deploys the function every automation runs, then warms the worker up (its first workflows and isolates). */
async function prepare(stack: AutomationsBenchStack): Promise<Bench> {
  const call = apiClient(stack);
  const created = await call('POST', '/functions', { name: 'bench-action', code: functionCode, runtime: 'node18' });
  if (created.status !== 201) throw new Error(`deploy answered ${created.status}: ${JSON.stringify(created.body)}`);
  // The functions area answers an envelope, the automations area bare bodies.
  const functionId = (created.body as { data: { id: string } }).data.id;
  for (let i = 0; i < 5; i++) {
    const invoked = await call('POST', `/functions/${functionId}/invoke`, { params: {} });
    if (invoked.status !== 200) throw new Error(`warm-up invoke answered ${invoked.status}`);
  }
  return { stack, call, clock: blockClock(stack.neoRpcUrl), action: { type: 'function', functionId } };
}

/** `count` automations named `<name>-<i>` for i from `from`, each triggered by `trigger(i)`. */
interface Batch {
  name: string;
  count: number;
  trigger: (i: number) => Trigger;
  from?: number;
}

/** Creates `batch` over the API, a few at a time; answers the ids in batch order. */
async function createAutomations(bench: Bench, label: string, batch: Batch): Promise<string[]> {
  const from = batch.from ?? 0;
  const ids = new Array<string>(batch.count);
  const began = performance.now();
  await runConcurrent(batch.count, counts.createConcurrency, async (k) => {
    const body = { name: `${batch.name}-${from + k}`, trigger: batch.trigger(from + k), action: bench.action };
    const answer = await bench.call('POST', '/automations', body);
    if (answer.status !== 201) throw new Error(`create answered ${answer.status}: ${JSON.stringify(answer.body)}`);
    ids[k] = (answer.body as { id: string }).id;
  });
  if (batch.count > 0) progress(`created ${batch.count} ${label} in ${elapsed(began)}`);
  return ids;
}

function deactivate(bench: Bench, ids: string[]) {
  return runConcurrent(ids.length, counts.createConcurrency, async (i) => {
    const answer = await bench.call('PATCH', `/automations/${ids[i]}`, { status: 'inactive' });
    if (answer.status !== 200) throw new Error(`deactivate answered ${answer.status}`);
  });
}

/** Watches the bench's transfers to `recipient`: it matches every one. */
const transfersTo = (recipient: string) => (): Trigger => ({
  type: 'blockchain',
  scriptHash: GAS,
  event: 'Transfer',
  filter: { to: recipient },
});

async function measureWith(stack: AutomationsBenchStack, prices: PriceServer) {
  const bench = await prepare(stack);
  const fire = await measureFireDelay(bench);
  const recipient = randomAddress();
  const watcherIds = await createAutomations(bench, 'watchers of transfers to the bench recipient', {
    name: 'watch',
    count: counts.watchers,
    trigger: transfersTo(recipient),
  });
  // The follower reads the chain from its height when first started: let it begin.
  await sleep(3000);
  const figures = await withTransfers(stack, recipient, async () => {
    const lag = await measureWatcherLag(bench, watcherIds);
    const pool = nonMatchingPool(bench, recipient);
    const windows = await measureRpcWindows(bench, pool);
    const mixed = await measureMixed(bench, pool, prices, recipient);
    return { fire, lag, windows, mixed };
  });
  report(figures);
}

/** Runs `work` while one GAS transfer a block goes to `recipient`, and stops the transfers however it ends. */
async function withTransfers<T>(stack: AutomationsBenchStack, recipient: string, work: () => Promise<T>) {
  const transfers = startTransfers(stack, recipient);
  try {
    return await work();
  } finally {
    const sent = await transfers.stop();
    progress(`transfers sent ${sent.sent}, failed ${sent.failed}${sent.lastError ? ` (last: ${sent.lastError})` : ''}`);
  }
}

/** 1. Schedule fire delay: every-second schedules on an otherwise idle worker. */
async function measureFireDelay(bench: Bench) {
  const ids = await createAutomations(bench, 'every-second schedules', {
    name: 'fire',
    count: counts.fireAutomations,
    trigger: () => ({ type: 'schedule', cron: '* * * * * *' }),
  });
  await sleep(counts.fireSeconds * 1000);
  await deactivate(bench, ids);
  const rows = await untilStarted(bench.stack, ids);
  const fire = {
    ...fireDelays(rows, schedulerDelays(await scheduledStarts(bench.stack, ids))),
    skipped: await skippedFires(bench.stack, ids),
  };
  progress(
    `fire delay over ${fire.fires} fires: execution p50 ${ms(fire.toExecution.p50)} p99 ${ms(fire.toExecution.p99)}`,
  );
  return fire;
}

/** 2. Watcher lag: the watchers `ids` of the transfers, one a block, for a while. */
async function measureWatcherLag(bench: Bench, ids: string[]) {
  await sleep(counts.watchSeconds * 1000);
  await deactivate(bench, ids);
  const lag = await watcherLags(bench.stack, bench.clock, await untilStarted(bench.stack, ids));
  progress(
    `watcher lag over ${lag.events} events: p50 ${ms(lag.toExecutionMs.p50)} p99 ${ms(lag.toExecutionMs.p99)}, ` +
      `blocks p50 ${lag.blocks.p50} p99 ${lag.blocks.p99}`,
  );
  return lag;
}

type Pool = ReturnType<typeof nonMatchingPool>;

/** Active blockchain automations that watch GAS but never match the bench's transfers, resized on demand. */
function nonMatchingPool(bench: Bench, recipient: string) {
  let ids: string[] = [];
  const trigger = (i: number): Trigger => {
    const kinds = [
      { event: 'Transfer', filter: { to: randomAddress() } },
      { event: 'Transfer', filter: { from: randomAddress() } },
      // `to` matches the bench's transfers, `amount` never does.
      { event: 'Transfer', filter: { to: recipient, amount: '7' } },
      { filter: { from: randomAddress() } },
    ];
    return { type: 'blockchain', scriptHash: GAS, ...kinds[i % kinds.length]! };
  };
  return {
    async resize(n: number) {
      if (ids.length > n) {
        await deactivate(bench, ids.slice(n));
        progress(`deactivated ${ids.length - n} non-matching blockchain automations`);
        ids = ids.slice(0, n);
      }
      const more = { name: 'chain', count: Math.max(0, n - ids.length), trigger, from: ids.length };
      ids = [...ids, ...(await createAutomations(bench, 'non-matching blockchain automations', more))];
    },
  };
}

interface RpcWindow {
  active: number;
  window: Window;
}

/** 3a. RPC per block by ever more active blockchain automations, none matching, nothing else active. */
async function measureRpcWindows(bench: Bench, pool: Pool) {
  const windows: RpcWindow[] = [];
  for (const active of [...counts.rpcSteps].sort((a, b) => a - b)) {
    await pool.resize(active);
    const label = `${active} blockchain automations, nothing else`;
    windows.push({ active, window: await measureWindow(bench.stack, label, counts.rpcSeconds) });
  }
  return windows;
}

interface Mixed {
  window: Window;
  underLoad: { fire: FireDelays; lag: WatcherLags };
}

/** 3b. The mixed set on one worker: what it costs in a steady window, and fire delay and lag meanwhile. */
async function measureMixed(bench: Bench, pool: Pool, prices: PriceServer, recipient: string): Promise<Mixed> {
  const { matchingIds, scheduleIds } = await createMixedSet(bench, pool, prices, recipient);
  progress(`mixed set active: ${mixedLine()}; settling ${counts.settleSeconds} s`);
  await sleep(counts.settleSeconds * 1000);
  const hitsBefore = prices.hits();
  const from = Date.now();
  const window = await measureWindow(bench.stack, `mixed (${mixedLine()})`, counts.steadySeconds);
  const to = Date.now();
  window.priceReads = prices.hits() - hitsBefore;
  await deactivate(bench, matchingIds);
  const within = (at: number) => at >= from && at < to;
  const scheduleRows = await untilStarted(bench.stack, scheduleIds, (row) =>
    within(Date.parse(row.trigger.scheduledAt!)),
  );
  const matchRows = await untilStarted(bench.stack, matchingIds, (row) => within(row.recorded_at));
  const scheduler = schedulerDelays(await scheduledStarts(bench.stack, scheduleIds), from, to);
  const lag = await watcherLags(bench.stack, bench.clock, matchRows);
  return { window, underLoad: { fire: fireDelays(scheduleRows, scheduler), lag } };
}

const mixedLine = () =>
  `${counts.blockchain} blockchain (${counts.matching} matching), ${counts.schedules} schedule, ${counts.prices} price`;

/** The blockchain automations (the pool and a few matching), the spread schedules and the price automations. */
async function createMixedSet(bench: Bench, pool: Pool, prices: PriceServer, recipient: string) {
  await pool.resize(counts.blockchain - counts.matching);
  const matching = { name: 'match', count: counts.matching, trigger: transfersTo(recipient) };
  const matchingIds = await createAutomations(bench, 'matching blockchain automations', matching);
  const schedules = { name: 'sched', count: counts.schedules, trigger: spreadSchedule };
  const scheduleIds = await createAutomations(bench, 'spread schedules', schedules);
  const priceTrigger = () => ({
    type: 'price',
    asset: 'NEO',
    condition: 'above',
    value: '1000',
    currency: 'USD',
    source: { url: prices.url, path: 'data.price' },
    pollInterval: counts.pricePollSeconds,
  });
  await createAutomations(bench, 'price automations', { name: 'price', count: counts.prices, trigger: priceTrigger });
  return { matchingIds, scheduleIds };
}

/** The i-th spread schedule: once per `scheduleEveryMinutes`, at its own second and minute offset. */
function spreadSchedule(i: number): Trigger {
  const every = counts.scheduleEveryMinutes;
  const offset = Math.floor(i / 60) % every;
  const minutes = Array.from({ length: Math.ceil((60 - offset) / every) }, (_, k) => offset + k * every);
  return { type: 'schedule', cron: `${i % 60} ${minutes.join(',')} * * * *` };
}

interface Figures {
  fire: FireDelays & { skipped: { overlap: number; missed: number } };
  lag: WatcherLags;
  windows: RpcWindow[];
  mixed: Mixed;
}

function report(figures: Figures) {
  const lines = [
    ...fireLines(figures.fire),
    ...lagLines(figures.lag),
    ...mixedLines(figures.mixed),
    ...rpcLines(figures.windows),
    ...targetLines(figures),
    `  counts: ${JSON.stringify(counts)}`,
  ];
  printReport('automations', lines, `, load now ${load()}`);
}

const verdict = (ok: boolean) => (ok ? 'PASS' : 'FAIL');
const blocksUnit = (value: number) => `${value}`;

function row(label: string, l: Latencies, unit = ms) {
  if (l.count === 0) return `  ${label.padEnd(58)} (no samples)`;
  return `  ${label.padEnd(58)} p50 ${unit(l.p50).padStart(9)}  p99 ${unit(l.p99).padStart(9)}  max ${unit(l.max).padStart(9)}  (n=${l.count})`;
}

function fireLines(fire: Figures['fire']) {
  return [
    `1. schedule fire delay, ${counts.fireAutomations} '* * * * * *' schedules for ${counts.fireSeconds} s (${fire.fires} fires, ${fire.unstarted} not started; Temporal skipped ${fire.skipped.overlap} for overlap, ${fire.skipped.missed} missed):`,
    row('scheduledAt → scheduledFire workflow started (Temporal)', fire.scheduler.all),
    row('  the same, previous fire of the schedule still running', fire.scheduler.afterRunning),
    row('  the same, previous fire of the schedule ended', fire.scheduler.afterEnded),
    row('scheduledAt → run recorded', fire.toRecorded),
    row('scheduledAt → execution startedAt (function start)', fire.toExecution),
    row('scheduledAt → first log line of the code', fire.toCode),
  ];
}

function lagLines(lag: WatcherLags) {
  return [
    `2. watcher lag, ${counts.watchers} watchers × one GAS transfer a block for ${counts.watchSeconds} s (${lag.events} events, ${lag.unstarted} not started):`,
    row('block time → run recorded by the follower', lag.toRecordedMs),
    row('block time → execution startedAt (action start)', lag.toExecutionMs),
    row('blocks: height at execution start − block index', lag.blocks, blocksUnit),
  ];
}

function mixedLines({ window: w, underLoad }: Mixed) {
  return [
    `3. mixed set on one worker, ${w.seconds.toFixed(1)} s steady window: ${w.label}`,
    `  worker cpu ${w.worker.cpuPercent.toFixed(1)}% of one core, rss ${w.worker.rssMeanMiB.toFixed(0)} MiB mean / ${w.worker.rssMaxMiB.toFixed(0)} MiB max, ${w.blocks} blocks, load ${w.loadBefore} → ${w.loadAfter}`,
    `  machine (2 cores) ${w.machine.busyPercent.toFixed(0)}% busy; top processes, % of one core:`,
    ...w.machine.top.map((top) => `    ${top.cpuPercent.toFixed(1).padStart(5)}%  ${top.pid}  ${top.command}`),
    `  rpc calls/block ${perBlock(w).toFixed(2)}: ${methodsLine(w)}`,
    `  during it: ${underLoad.fire.fires} schedule fires (function runs), ${underLoad.lag.events} watcher runs, ${w.priceReads ?? 0} price reads (none fired)`,
    row('under mixed load: scheduledAt → workflow started (Temporal)', underLoad.fire.scheduler.all),
    row('under mixed load: scheduledAt → execution startedAt', underLoad.fire.toExecution),
    row('under mixed load: block time → run recorded', underLoad.lag.toRecordedMs),
    row('under mixed load: block time → execution startedAt', underLoad.lag.toExecutionMs),
    row('under mixed load: lag in blocks', underLoad.lag.blocks, blocksUnit),
  ];
}

function rpcLines(windows: RpcWindow[]) {
  return [
    `  rpc calls per block by active blockchain automations, none matching, nothing else active (${counts.rpcSeconds} s windows, one transfer a block):`,
    ...windows.map(
      ({ active, window }) =>
        `    ${String(active).padStart(5)}: ${perBlock(window).toFixed(2)} (${methodsLine(window)}); worker cpu ${window.worker.cpuPercent.toFixed(1)}%, rss ${window.worker.rssMeanMiB.toFixed(0)} MiB, machine ${window.machine.busyPercent.toFixed(0)}% busy`,
    ),
  ];
}

function targetLines({ fire, lag, windows, mixed }: Figures) {
  const growth = rpcGrowth(windows);
  const cpu = mixed.window.worker.cpuPercent;
  const perStep = windows.map(({ active, window }) => `${perBlock(window).toFixed(2)} at ${active}`).join(', ');
  return [
    `  targets:`,
    `    fire delay p99 ${ms(fire.toExecution.p99)} ≤ ${ms(targets.fireDelayP99Ms)}  ${verdict(fire.toExecution.p99 <= targets.fireDelayP99Ms)}`,
    `    watcher lag p99 ${lag.blocks.p99} block(s) ≤ ${targets.lagP99Blocks}  ${verdict(lag.blocks.p99 <= targets.lagP99Blocks)}`,
    `    rpc calls per block independent of automations: ${perStep}; largest growth of any method over the first window that calls it ${(growth * 100).toFixed(1)}% ≤ ${targets.rpcGrowth * 100}%  ${verdict(growth <= targets.rpcGrowth)}`,
    `    mixed set worker cpu ${cpu.toFixed(1)}% of one core ≤ ${targets.mixedCpuPercent}%  ${verdict(cpu <= targets.mixedCpuPercent)}`,
  ];
}

/** Independent: no method is called more per block with more automations than with the fewest. */
/**
 * How much any method's calls per block grew over the first window that made them: a method that
 * only watchers need (the deployed-contract check, once per watched contract every 30 s) starts
 * with the first of them and must not grow with more.
 */
function rpcGrowth(windows: RpcWindow[]) {
  const perBlock = (window: Window, method: string) => (window.calls.get(method) ?? 0) / Math.max(1, window.blocks);
  return Math.max(
    ...windows.flatMap(({ window }) =>
      [...window.calls.keys()].map((method) => {
        const first = windows.find((step) => step.window.calls.has(method))!.window;
        return perBlock(window, method) / perBlock(first, method) - 1;
      }),
    ),
  );
}

function methodsLine(window: Window) {
  return (
    [...window.calls]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([method, count]) => `${method} ${(count / Math.max(1, window.blocks)).toFixed(2)}`)
      .join(', ') || 'none'
  );
}

await runBench('automations', {
  counts,
  notes: [`load average at start: ${load()}`],
  start: startAutomationsStack,
  measure: async (stack) => {
    const prices = await startPriceServer();
    try {
      await measureWith(stack, prices);
    } finally {
      await prices.close();
    }
  },
});

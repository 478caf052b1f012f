/**
 * `npm run bench:automations`: how promptly automations fire, and what 1,000 of them cost one
 * worker, against the real stack (embedded PostgreSQL, Temporal dev server, neo-go devnet with
 * 1-second blocks, the API in-process, ONE worker as a child process whose Neo RPC goes through a
 * counting proxy). With BENCH_AUTOMATIONS_CPU_PROF set to a directory, the worker writes its CPU
 * profiles there (bench/profile-window.ts reads a window out of them, whose bounds each window
 * prints). A benchmark, not a test: it prints figures and PASS/FAIL per target, and exits 0 either
 * way.
 */
import { loadavg } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
import { startPriceServer } from '../test/support/price-server.ts';
import {
  blockClock,
  createAutomations,
  deactivate,
  deployBenchAction,
  fireDelays,
  nonMatchingWatcher,
  randomAddress,
  startTransfers,
  transfersTo,
  untilStarted,
  watcherLags,
  type Batch,
  type Creator,
  type FireDelays,
  type Trigger,
  type WatcherLags,
} from './automation-runs.ts';
import { startAutomationsStack, type AutomationsBenchStack } from './automations-stack.ts';
import { countFrom, ms, progress, printReport, runBench, summarise, type Latencies } from './measure.ts';
import { sampleMachine, sampleProcess, type MachineSample, type ProcessSample } from './proc.ts';
import { apiClient } from './scratch-stack.ts';
import { attributeKeys } from '../src/shared/workflow-attributes.ts';

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

const load = () =>
  loadavg()
    .map((value) => value.toFixed(2))
    .join(' ');

/** Set by Temporal on every workflow a schedule starts. */
const scheduledStartTime = defineSearchAttributeKey('TemporalScheduledStartTime', SearchAttributeType.DATETIME);

interface ScheduledStart {
  automationId: string;
  scheduledAt: number;
  startedAt: number;
  closedAt: number | null;
}

/**
 * Every workflow Temporal's scheduler started for `automationIds` (`scheduledRun`, the run's own;
 * `scheduledFire` on the code before issue 50), from its visibility store.
 */
async function scheduledStarts(stack: AutomationsBenchStack, automationIds: string[]): Promise<ScheduledStart[]> {
  const starts: ScheduledStart[] = [];
  const ids = new Set(automationIds);
  const query = `WorkflowType IN ('scheduledRun', 'scheduledFire')`;
  for await (const workflow of stack.temporal.client.workflow.list({ query })) {
    // Each is labelled with its automation (schedule-options.control.ts).
    const automationId = workflow.typedSearchAttributes.get(attributeKeys.automation);
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
 * automation's previous fire was still running at the scheduled time (the overlap policy was SKIP before issue 50, ALLOW_ALL since).
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

/** Fire delays with the scheduler's own part of them. */
type SchedulerFireDelays = FireDelays & { scheduler: ReturnType<typeof schedulerDelays> };

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
  const from = Date.now();
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
  // The window's bounds, to cut it out of the worker's CPU profile (BENCH_AUTOMATIONS_CPU_PROF).
  progress(`${label}: ${describeWindow(window)} (window ${from}–${Date.now()} ms since the epoch)`);
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

/** What every phase works with: the stack, its API, the block clock, the one action every automation runs. */
interface Bench extends Creator {
  stack: AutomationsBenchStack;
  clock: ReturnType<typeof blockClock>;
}

/** Deploys the function every automation runs, then warms the worker up (its first workflows and isolates). */
async function prepare(stack: AutomationsBenchStack): Promise<Bench> {
  const call = apiClient(stack);
  const action = await deployBenchAction(call);
  return { stack, call, action, concurrency: counts.createConcurrency, clock: blockClock(stack.neoRpcUrl) };
}

/** The ids of `batch`, created over the API. */
const create = async (bench: Bench, label: string, batch: Batch) => (await createAutomations(bench, label, batch)).ids;

type PriceServer = Awaited<ReturnType<typeof startPriceServer>>;

async function measureWith(stack: AutomationsBenchStack, prices: PriceServer) {
  const bench = await prepare(stack);
  const fire = await measureFireDelay(bench);
  const recipient = randomAddress();
  const watcherIds = await create(bench, 'watchers of transfers to the bench recipient', {
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
  const ids = await create(bench, 'every-second schedules', {
    name: 'fire',
    count: counts.fireAutomations,
    trigger: () => ({ type: 'schedule', cron: '* * * * * *' }),
  });
  await sleep(counts.fireSeconds * 1000);
  await deactivate(bench, ids);
  const rows = await untilStarted(bench.stack, ids);
  const fire = {
    ...fireDelays(rows),
    scheduler: schedulerDelays(await scheduledStarts(bench.stack, ids)),
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
  const trigger = nonMatchingWatcher(recipient);
  return {
    async resize(n: number) {
      if (ids.length > n) {
        await deactivate(bench, ids.slice(n));
        progress(`deactivated ${ids.length - n} non-matching blockchain automations`);
        ids = ids.slice(0, n);
      }
      const more = { name: 'chain', count: Math.max(0, n - ids.length), trigger, from: ids.length };
      ids = [...ids, ...(await create(bench, 'non-matching blockchain automations', more))];
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
  underLoad: { fire: SchedulerFireDelays; lag: WatcherLags };
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
  return { window, underLoad: { fire: { ...fireDelays(scheduleRows), scheduler }, lag } };
}

const mixedLine = () =>
  `${counts.blockchain} blockchain (${counts.matching} matching), ${counts.schedules} schedule, ${counts.prices} price`;

/** The blockchain automations (the pool and a few matching), the spread schedules and the price automations. */
async function createMixedSet(bench: Bench, pool: Pool, prices: PriceServer, recipient: string) {
  await pool.resize(counts.blockchain - counts.matching);
  const matching = { name: 'match', count: counts.matching, trigger: transfersTo(recipient) };
  const matchingIds = await create(bench, 'matching blockchain automations', matching);
  const schedules = { name: 'sched', count: counts.schedules, trigger: spreadSchedule };
  const scheduleIds = await create(bench, 'spread schedules', schedules);
  const priceTrigger = () => ({
    type: 'price',
    asset: 'NEO',
    condition: 'above',
    value: '1000',
    currency: 'USD',
    source: { url: prices.url, path: 'data.price' },
    pollInterval: counts.pricePollSeconds,
  });
  await create(bench, 'price automations', { name: 'price', count: counts.prices, trigger: priceTrigger });
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
  fire: SchedulerFireDelays & { skipped: { overlap: number; missed: number } };
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
    row("scheduledAt → its fire's workflow started (Temporal)", fire.scheduler.all),
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

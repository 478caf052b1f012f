/**
 * `npm run bench:scale`: what N mostly idle automations cost the README stack (issue 34). On one
 * `neoflow up` it creates, over the API at concurrency 16, N automations in a migrating team's
 * proportion (40 % watchers that never match, 30 % price triggers over 10 sources, 30 % hourly
 * schedules) for each N of BENCH_SCALE_NS in turn, growing the same set, plus a few fast schedules
 * whose fire delay and a few watchers whose lag are measured. Per N, after a settling pause, a
 * steady window gives the CPU of the worker, the Temporal server and PostgreSQL (% of one core,
 * from /proc), their memory, the Neo RPC calls and price reads per minute, fire delay p99 and
 * watcher lag p99, with the load average beside them. With BENCH_SCALE_CPU_PROF set to a
 * directory, the stack's Node.js processes write CPU profiles there (bench/profile-window.ts reads
 * a steady window out of them). A benchmark, not a test: it exits 0 whatever its figures.
 */
import { loadavg } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { startPriceServer } from '../test/support/price-server.ts';
import {
  blockClock,
  createAutomations,
  deployBenchAction,
  fireDelays,
  randomAddress,
  startTransfers,
  transfersTo,
  untilStarted,
  watcherLags,
  type Creator,
  type Trigger,
} from './automation-runs.ts';
import { countFrom, printReport, progress, runBench } from './measure.ts';
import { sampleGroups, sampleMachine, type GroupSample } from './proc.ts';
import { describeActivity, sampleActivity, type Activity } from './pg-activity.ts';
import { mixTriggers, share, type Kind } from './scale-mix.ts';
import { startScaleStack, type ScaleStack } from './scale-stack.ts';
import { apiClient } from './scratch-stack.ts';

const counts = {
  ns: (process.env.BENCH_SCALE_NS ?? '1000,3000,10000')
    .split(',')
    .map(Number)
    .sort((a, b) => a - b),
  sources: countFrom('BENCH_SCALE_SOURCES', 10),
  pricePollSeconds: countFrom('BENCH_SCALE_POLL_SECONDS', 30),
  /** The fast set: schedules firing every fastEverySeconds, for the fire delay. */
  fast: countFrom('BENCH_SCALE_FAST', 5),
  fastEverySeconds: countFrom('BENCH_SCALE_FAST_EVERY_SECONDS', 10),
  /** Watchers of the bench's GAS transfers (one a block), for the lag. */
  lagWatchers: countFrom('BENCH_SCALE_LAG_WATCHERS', 2),
  settleSeconds: countFrom('BENCH_SCALE_SETTLE_SECONDS', 30),
  steadySeconds: countFrom('BENCH_SCALE_STEADY_SECONDS', 60),
  createConcurrency: countFrom('BENCH_CREATE_CONCURRENCY', 16),
};
/** Issue 34's acceptance at N = 10,000, and its creates per second. */
const targets = { cpuPercent: 35, fireDelayP99Ms: 1000, lagP99Blocks: 1, growth: 2, createsPerSecond: 100 };

/** The processes of `neoflow up` the issue counts, and the API, by command line. */
const groups = {
  worker: /neoflow\.js worker/,
  temporal: /temporal server start-dev/,
  postgres: /(^|\/)postgres(:| |$)/,
  api: /neoflow\.js api/,
};

const load = () =>
  loadavg()
    .map((value) => value.toFixed(2))
    .join(' ');

interface Step {
  n: number;
  creates: Creates;
  groups: Record<keyof typeof groups, GroupSample>;
  machineBusyPercent: number;
  /** PostgreSQL's commits and rows read in the window. */
  pg: Activity;
  seconds: number;
  rpcPerMinute: number;
  priceReadsPerMinute: number;
  fireDelayP99Ms: number;
  fires: number;
  lagP99Blocks: number;
  lagEvents: number;
  loadBefore: string;
  loadAfter: string;
}

interface Scale extends Creator {
  stack: ScaleStack;
  prices: Awaited<ReturnType<typeof startPriceServer>>;
  recipient: string;
  clock: ReturnType<typeof blockClock>;
  /** The ids created so far, by kind; the fast schedules and the lag watchers on their own. */
  ids: Record<Kind, string[]>;
  fastIds: string[];
  lagIds: string[];
  /** Each process's CPU (% of one core) in the last steady window: what a create's cost is counted above. */
  baseline: Record<keyof typeof groups, number>;
}

const triggers = (scale: Scale): Record<Kind, (i: number) => Trigger> =>
  mixTriggers(scale.recipient, scale.prices.url, counts.sources, counts.pricePollSeconds);

/**
 * What creating a step's automations took: creates per second, and CPU ms per create by process
 * above what the process spent before (the last steady window), by kind and over all.
 */
type Creates = Record<Kind | 'all', { perSecond: number; cpuMs: Record<keyof typeof groups, number> }>;

/** Grows the set to `n` automations in the mix's proportion, each kind in turn. */
async function growTo(scale: Scale, n: number): Promise<Creates> {
  const none = () => ({ perSecond: Number.NaN, cpuMs: { worker: 0, temporal: 0, postgres: 0, api: 0 } });
  const creates: Creates = { watchers: none(), prices: none(), schedules: none(), all: none() };
  let created = 0;
  let seconds = 0;
  for (const kind of Object.keys(share) as Kind[]) {
    const from = scale.ids[kind].length;
    const count = Math.round(n * share[kind]) - from;
    if (count <= 0) continue;
    const batch = { name: kind, count, from, trigger: triggers(scale)[kind] };
    const began = performance.now();
    const sampler = sampleGroups(groups);
    const { ids, perSecond } = await createAutomations(scale, kind, batch);
    const sampled = sampler.stop();
    const wallSeconds = (performance.now() - began) / 1000;
    scale.ids[kind].push(...ids);
    const above = (name: keyof typeof groups) => sampled[name].cpuPercent - scale.baseline[name];
    const cpuMs = mapGroups((name) => (above(name) * wallSeconds * 10) / count);
    creates[kind] = { perSecond, cpuMs };
    progress(`  cpu ms per create: ${describeCpu(cpuMs)} (load ${load()})`);
    creates.all.cpuMs = mapGroups((name) => creates.all.cpuMs[name] + cpuMs[name] * count);
    created += count;
    seconds += count / perSecond;
  }
  creates.all = { perSecond: created / seconds, cpuMs: mapGroups((name) => creates.all.cpuMs[name] / created) };
  return creates;
}

const mapGroups = (value: (name: keyof typeof groups) => number) =>
  Object.fromEntries(Object.keys(groups).map((name) => [name, value(name as keyof typeof groups)])) as Record<
    keyof typeof groups,
    number
  >;

const describeCpu = (cpuMs: Record<keyof typeof groups, number>) =>
  Object.entries(cpuMs)
    .map(([name, value]) => `${name} ${value.toFixed(1)}`)
    .join(', ');

/** Settles, then measures a steady window: the processes' cost, the calls out, fire delays and lag. */
async function measureStep(scale: Scale, n: number, creates: Creates): Promise<Step> {
  progress(`${n} automations; settling ${counts.settleSeconds} s (load ${load()})`);
  await sleep(counts.settleSeconds * 1000);
  const loadBefore = load();
  const rpcBefore = total(scale.stack.rpc.snapshot());
  const readsBefore = scale.prices.hits();
  const from = Date.now();
  const sampler = sampleGroups(groups);
  const machine = sampleMachine();
  const activity = await sampleActivity(scale.stack.orm);
  await sleep(counts.steadySeconds * 1000);
  const sampled = sampler.stop();
  const pg = await activity.stop();
  scale.baseline = mapGroups((name) => sampled[name].cpuPercent);
  const busy = machine.stop().busyPercent;
  const to = Date.now();
  const minutes = (to - from) / 60_000;
  const rpcPerMinute = (total(scale.stack.rpc.snapshot()) - rpcBefore) / minutes;
  const priceReadsPerMinute = (scale.prices.hits() - readsBefore) / minutes;
  const loadAfter = load();
  const within = (at: number) => at >= from && at < to;
  const scheduleIds = [...scale.fastIds, ...scale.ids.schedules];
  const fireRows = await untilStarted(scale.stack, scheduleIds, (row) => within(Date.parse(row.trigger.scheduledAt!)));
  const fire = fireDelays(fireRows);
  const lagRows = await untilStarted(scale.stack, scale.lagIds, (row) => within(row.recorded_at));
  const lag = await watcherLags(scale.stack, scale.clock, lagRows);
  const step: Step = {
    n,
    creates,
    groups: sampled,
    machineBusyPercent: busy,
    pg,
    seconds: (to - from) / 1000,
    rpcPerMinute,
    priceReadsPerMinute,
    fireDelayP99Ms: fire.toExecution.p99,
    fires: fire.toExecution.count,
    lagP99Blocks: lag.blocks.p99,
    lagEvents: lag.blocks.count,
    loadBefore,
    loadAfter,
  };
  // The window's bounds, to cut the steady state out of the CPU profiles (BENCH_SCALE_CPU_PROF).
  progress(`N=${n}: ${stepLine(step)} (window ${from}–${to} ms since the epoch)`);
  return step;
}

/** Each process's CPU over `seconds` before anything more is created. */
async function baselineOf(seconds: number) {
  const sampler = sampleGroups(groups);
  await sleep(seconds * 1000);
  const sampled = sampler.stop();
  const baseline = mapGroups((name) => sampled[name].cpuPercent);
  progress(`baseline before the first creates: ${describeCpu(baseline)} % of one core (load ${load()})`);
  return baseline;
}

const total = (calls: Map<string, number>) => [...calls.values()].reduce((sum, count) => sum + count, 0);

async function measure(stack: ScaleStack) {
  const prices = await startPriceServer();
  try {
    const call = apiClient(stack);
    const action = await deployBenchAction(call);
    const scale: Scale = {
      stack,
      call,
      action,
      concurrency: counts.createConcurrency,
      prices,
      recipient: randomAddress(),
      clock: blockClock(stack.neoRpcUrl),
      ids: { watchers: [], prices: [], schedules: [] },
      fastIds: [],
      lagIds: [],
      baseline: mapGroups(() => 0),
    };
    const every = counts.fastEverySeconds;
    const fast = (i: number): Trigger => ({ type: 'schedule', cron: `${i % every}/${every} * * * * *` });
    scale.fastIds = (
      await createAutomations(scale, 'fast schedules', { name: 'fast', count: counts.fast, trigger: fast })
    ).ids;
    const lag = { name: 'lag', count: counts.lagWatchers, trigger: transfersTo(scale.recipient) };
    scale.lagIds = (await createAutomations(scale, 'lag watchers', lag)).ids;
    const transfers = startTransfers(stack, scale.recipient);
    scale.baseline = await baselineOf(counts.settleSeconds);
    const steps: Step[] = [];
    try {
      for (const n of counts.ns) steps.push(await measureStep(scale, n, await growTo(scale, n)));
    } finally {
      const sent = await transfers.stop();
      progress(
        `transfers sent ${sent.sent}, failed ${sent.failed}${sent.lastError ? ` (last: ${sent.lastError})` : ''}`,
      );
      if (steps.length > 0) report(steps);
    }
  } finally {
    await prices.close();
  }
}

const pct = (value: number) => `${value.toFixed(1)}%`;
const mib = (value: number) => `${value.toFixed(0)}`;
const core = (step: Step) =>
  step.groups.worker.cpuPercent + step.groups.temporal.cpuPercent + step.groups.postgres.cpuPercent;

function stepLine(step: Step) {
  const { worker, temporal, postgres, api } = step.groups;
  return (
    `creates ${step.creates.all.perSecond.toFixed(1)}/s (watchers ${step.creates.watchers.perSecond.toFixed(1)}, prices ${step.creates.prices.perSecond.toFixed(1)}, schedules ${step.creates.schedules.perSecond.toFixed(1)}; cpu ms per create ${describeCpu(step.creates.all.cpuMs)}); ` +
    `cpu worker ${pct(worker.cpuPercent)}, temporal ${pct(temporal.cpuPercent)}, postgres ${pct(postgres.cpuPercent)} (api ${pct(api.cpuPercent)}); ` +
    `rss worker ${mib(worker.rssMiB)}, temporal ${mib(temporal.rssMiB)}, postgres ${mib(postgres.rssMiB)} MiB; ` +
    `rpc ${step.rpcPerMinute.toFixed(0)}/min, price reads ${step.priceReadsPerMinute.toFixed(1)}/min; ` +
    `fire p99 ${step.fireDelayP99Ms.toFixed(0)} ms (${step.fires}), lag p99 ${step.lagP99Blocks} blocks (${step.lagEvents}); ` +
    `${describeActivity(step.pg)}; ` +
    `machine ${step.machineBusyPercent.toFixed(0)}% busy, load ${step.loadBefore} → ${step.loadAfter}`
  );
}

function report(steps: Step[]) {
  const header = [
    'N',
    'creates/s',
    'worker',
    'temporal',
    'postgres',
    'sum',
    'api',
    'RSS w/t/pg MiB',
    'rpc/min',
    'http/min',
    'fire p99',
    'lag p99',
    'load 1-min before→after',
  ];
  const rows = steps.map((step) => [
    String(step.n),
    step.creates.all.perSecond.toFixed(1),
    pct(step.groups.worker.cpuPercent),
    pct(step.groups.temporal.cpuPercent),
    pct(step.groups.postgres.cpuPercent),
    pct(core(step)),
    pct(step.groups.api.cpuPercent),
    `${mib(step.groups.worker.rssMiB)}/${mib(step.groups.temporal.rssMiB)}/${mib(step.groups.postgres.rssMiB)}`,
    step.rpcPerMinute.toFixed(0),
    step.priceReadsPerMinute.toFixed(1),
    `${step.fireDelayP99Ms.toFixed(0)} ms`,
    `${step.lagP99Blocks} blk`,
    `${step.loadBefore.split(' ')[0]} → ${step.loadAfter.split(' ')[0]}`,
  ]);
  const widths = header.map((title, i) => Math.max(title.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]) => `  | ${cells.map((cell, i) => cell.padEnd(widths[i]!)).join(' | ')} |`;
  const first = steps[0]!;
  const last = steps.at(-1)!;
  const readsBound = counts.sources * (60 / counts.pricePollSeconds);
  printReport(
    'scale',
    [
      `  CPU in % of one core over ${counts.steadySeconds} s steady windows after ${counts.settleSeconds} s settling; RSS at the window's end (PostgreSQL: summed over its processes); ` +
        `plus ${counts.fast} schedules every ${counts.fastEverySeconds} s and ${counts.lagWatchers} watchers of one transfer a block`,
      line(header),
      line(widths.map((width) => '-'.repeat(width))),
      ...rows.map(line),
      ...steps.map(
        ({ n, creates }) =>
          `  creates up to N=${n} at concurrency ${counts.createConcurrency}: ${creates.all.perSecond.toFixed(1)}/s (watchers ${creates.watchers.perSecond.toFixed(1)}, prices ${creates.prices.perSecond.toFixed(1)}, schedules ${creates.schedules.perSecond.toFixed(1)}); ` +
          `cpu ms per create above the steady cost before: ${describeCpu(creates.all.cpuMs)}`,
      ),
      ...(steps.length > 1
        ? [
            `  ratios N=${last.n} vs N=${first.n}: worker ${ratio(last.groups.worker.cpuPercent, first.groups.worker.cpuPercent)}, temporal ${ratio(last.groups.temporal.cpuPercent, first.groups.temporal.cpuPercent)}, postgres ${ratio(last.groups.postgres.cpuPercent, first.groups.postgres.cpuPercent)}, ` +
              `sum ${ratio(core(last), core(first))} (target < ${targets.growth}×), rpc/min ${ratio(last.rpcPerMinute, first.rpcPerMinute)}, http/min ${ratio(last.priceReadsPerMinute, first.priceReadsPerMinute)}`,
          ]
        : []),
      `  targets at N=${last.n}: cpu sum ${pct(core(last))} ≤ ${targets.cpuPercent}% ${verdict(core(last) <= targets.cpuPercent)}; ` +
        `fire p99 ${last.fireDelayP99Ms.toFixed(0)} ms ≤ ${targets.fireDelayP99Ms} ${verdict(last.fireDelayP99Ms <= targets.fireDelayP99Ms)}; ` +
        `lag p99 ${last.lagP99Blocks} ≤ ${targets.lagP99Blocks} ${verdict(last.lagP99Blocks <= targets.lagP99Blocks)}; ` +
        `price reads ${last.priceReadsPerMinute.toFixed(1)}/min ≤ ${readsBound} ${verdict(last.priceReadsPerMinute <= readsBound)}; ` +
        `creates (slowest step) ${Math.min(...steps.map((step) => step.creates.all.perSecond)).toFixed(1)}/s ≥ ${targets.createsPerSecond} ${verdict(steps.every((step) => step.creates.all.perSecond >= targets.createsPerSecond))}`,
      `  counts: ${JSON.stringify(counts)}`,
    ],
    `, load now ${load()}`,
  );
  for (const step of steps) process.stdout.write(`${JSON.stringify(jsonOf(step))}\n`);
}

const ratio = (after: number, before: number) => `${(after / before).toFixed(2)}×`;
const verdict = (ok: boolean) => (ok ? 'PASS' : 'MISS');
const round = (value: number) => Math.round(value * 10) / 10;

function jsonOf(step: Step) {
  return {
    n: step.n,
    workerCpu: round(step.groups.worker.cpuPercent),
    temporalCpu: round(step.groups.temporal.cpuPercent),
    postgresCpu: round(step.groups.postgres.cpuPercent),
    fireDelayP99Ms: Math.round(step.fireDelayP99Ms),
    lagP99Blocks: step.lagP99Blocks,
    workerRssMiB: Math.round(step.groups.worker.rssMiB),
    temporalRssMiB: Math.round(step.groups.temporal.rssMiB),
    postgresRssMiB: Math.round(step.groups.postgres.rssMiB),
    rpcPerMinute: Math.round(step.rpcPerMinute),
    httpReadsPerMinute: round(step.priceReadsPerMinute),
    pgCommitsPerMinute: Math.round(step.pg.commitsPerMinute),
    pgRowsReadPerMinute: Math.round(step.pg.rowsPerMinute),
    createsPerSecond: round(step.creates.all.perSecond),
    load: step.loadAfter,
  };
}

await runBench('scale', {
  counts,
  notes: [`load average at start: ${load()}`],
  start: (report) =>
    startScaleStack(
      report,
      process.env.BENCH_SCALE_CPU_PROF
        ? { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${process.env.BENCH_SCALE_CPU_PROF}` }
        : {},
    ),
  measure,
});

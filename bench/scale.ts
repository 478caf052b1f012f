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
 * a steady window out of them). Before anything is created, a bare window measures the stack with
 * one function and no automation (N = 0). With BENCH_SCALE_BASE set to a commit, the whole
 * measurement runs BENCH_SCALE_ROUNDS times on a stack of the base's code and on one of this
 * checkout's, in turn ABBA (a fresh stack each, one at a time), and ends with each N's ratio of
 * this code's CPU to the base's, round by round: only ratios within one run count on a shared
 * machine. A benchmark, not a test: it exits 0 whatever its figures.
 */
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
import { baseCheckout } from './base-checkout.ts';
import { countFrom, progress, runBench } from './measure.ts';
import { loadLine, sampleGroups, sampleMachine } from './proc.ts';
import { sampleActivity } from './pg-activity.ts';
import { mixTriggers, share, type Kind } from './scale-mix.ts';
import {
  bareLine,
  describeCpu,
  groups,
  mapGroups,
  report,
  stepLine,
  type Block,
  type Creates,
  type Group,
  type Step,
} from './scale-report.ts';
import { startScaleStack, type ScaleStack } from './scale-stack.ts';
import { apiClient } from './scratch-stack.ts';

const counts = {
  /** The steps; empty (BENCH_SCALE_NS=''): the bare window alone. */
  ns: (process.env.BENCH_SCALE_NS ?? '1000,3000,10000')
    .split(',')
    .filter(Boolean)
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
  /** With a base commit: how many times each code is measured (ABBA...). */
  rounds: countFrom('BENCH_SCALE_ROUNDS', 1),
};
/** The commit whose code is alternated with this checkout's (issue 50: 3fa7cdf, the code before it). */
const base = process.env.BENCH_SCALE_BASE || undefined;
/**
 * Issue 34's acceptance at N = 10,000 (CPU sum, fire p99, lag), and issue 50's: the CPU sum at
 * most 0.6 × the base's.
 */
const targets = { cpuPercent: 35, fireDelayP99Ms: 1000, lagP99Blocks: 1, baseRatio: 0.6 };

const load = loadLine;

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
  baseline: Record<Group, number>;
}

const triggers = (scale: Scale): Record<Kind, (i: number) => Trigger> =>
  mixTriggers(scale.recipient, scale.prices.url, counts.sources, counts.pricePollSeconds);

/** Grows the set to `n` automations in the mix's proportion, each kind in turn. */
async function growTo(scale: Scale, n: number): Promise<Creates> {
  const none = () => ({ perSecond: Number.NaN, cpuMs: mapGroups(() => 0) });
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
    const above = (name: Group) => sampled[name].cpuPercent - scale.baseline[name];
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

/**
 * The bare stack: one function deployed, no automation (N = 0), after a settling pause: each
 * process's CPU and PostgreSQL's activity over a steady window.
 */
async function bareWindow(stack: ScaleStack): Promise<Block['bare']> {
  progress(`bare stack; settling ${counts.settleSeconds} s (load ${load()})`);
  await sleep(counts.settleSeconds * 1000);
  const loadBefore = load();
  const rpcBefore = total(stack.rpc.snapshot());
  const from = Date.now();
  const sampler = sampleGroups(groups);
  const activity = await sampleActivity(stack.orm);
  await sleep(counts.steadySeconds * 1000);
  const sampled = sampler.stop();
  const rpcPerMinute = ((total(stack.rpc.snapshot()) - rpcBefore) * 60_000) / (Date.now() - from);
  const bare = { groups: sampled, pg: await activity.stop(), rpcPerMinute, load: `${loadBefore} → ${load()}` };
  progress(bareLine(bare));
  return bare;
}

/** The bare window, then the fast set and the lag watchers, then each N of the mix in turn. */
async function measure(stack: ScaleStack, code: string, round: number): Promise<Block> {
  const prices = await startPriceServer();
  try {
    const call = apiClient(stack);
    const action = await deployBenchAction(call);
    const block: Block = { code, round, bare: await bareWindow(stack), steps: [] };
    if (counts.ns.length === 0) return block;
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
    try {
      for (const n of counts.ns) block.steps.push(await measureStep(scale, n, await growTo(scale, n)));
    } finally {
      const sent = await transfers.stop();
      progress(
        `transfers sent ${sent.sent}, failed ${sent.failed}${sent.lastError ? ` (last: ${sent.lastError})` : ''}`,
      );
    }
    return block;
  } finally {
    await prices.close();
  }
}

const profiling: Record<string, string> = process.env.BENCH_SCALE_CPU_PROF
  ? { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${process.env.BENCH_SCALE_CPU_PROF}` }
  : {};

/** Which code each block runs: this checkout's alone, or ABBA with the base's, round by round. */
const order = () =>
  Array.from({ length: base === undefined ? 1 : counts.rounds }, (_, round) =>
    base === undefined ? ['this'] : round % 2 === 0 ? [base, 'this'] : ['this', base],
  ).flatMap((codes, round) => codes.map((code) => ({ code, round: round + 1 })));

/** Each block on a fresh stack of its code, one at a time; the report of those measured, whatever fails. */
async function measureAll() {
  const checkout = base === undefined ? undefined : await baseCheckout(base, progress);
  const blocks: Block[] = [];
  try {
    for (const { code, round } of order()) {
      progress(`round ${round}: the code of ${code === 'this' ? 'this checkout' : code} (load ${load()})`);
      const stack = await startScaleStack(progress, profiling, code === 'this' ? undefined : checkout);
      try {
        blocks.push(await measure(stack, code, round));
      } finally {
        progress('stopping the stack');
        await stack.stop();
      }
    }
  } finally {
    if (blocks.length > 0) report(blocks, { counts, base, targets });
  }
}

await runBench('scale', {
  counts: { ...counts, base },
  notes: [`load average at start: ${load()}`],
  // Each block starts and stops a stack of its own (measureAll).
  start: () => Promise.resolve({ stop: () => Promise.resolve() }),
  measure: measureAll,
});

/**
 * `npm run bench:invoke`: what a user of `neoflow up` gets from invoking a function, and in the same
 * run, against the same Temporal server, the floors it is judged against. A benchmark, not a test:
 * it prints figures, ratios and PASS/MISS per target, and exits 0 either way.
 */
import ivm from 'isolated-vm';
import pg from 'pg';
import { startFloor, type Floor } from './floor/floor.ts';
import {
  countFrom,
  ms,
  perSecond,
  progress,
  printReport,
  runBench,
  runConcurrent,
  summarise,
  type Latencies,
} from './measure.ts';
import { sampleTree } from './proc.ts';
import { apiClient } from './scratch-stack.ts';
import { measureTwoAccounts, type TwoAccountsRound } from './two-accounts.ts';
import { startUpStack, type UpStack } from './up-stack.ts';

const counts = {
  warmup: countFrom('BENCH_WARMUP', 30),
  /**
   * Each round measures a floor and then what it is compared with, back to back, so that both see
   * the same machine: the floors alone move by a quarter from one run to the next. The verdicts
   * are the medians of the rounds' ratios; the counts below are per round.
   */
  rounds: countFrom('BENCH_ROUNDS', 3),
  syncSerial: countFrom('BENCH_SYNC_SERIAL', 100),
  syncParallel: countFrom('BENCH_SYNC_PARALLEL', 400),
  asyncTotal: countFrom('BENCH_ASYNC_TOTAL', 400),
  floorSerial: countFrom('BENCH_FLOOR_SERIAL', 100),
  floorTotal: countFrom('BENCH_FLOOR_TOTAL', 400),
  isolates: countFrom('BENCH_ISOLATES', 100),
  /** The latency phase of a round is taken in this many turns of floors and invokes. */
  latencyBlocks: countFrom('BENCH_LATENCY_BLOCKS', 5),
};
const functionCode = 'module.exports = async (c) => ({ x: c.params.x + 1 });';
const targets = { latencyRatio: 1.25, throughputRatio: 0.8, tailRatio: 3 };

interface Envelope {
  success: boolean;
  data?: Record<string, unknown>;
  error?: { code: string; message: string };
}

interface Stack extends UpStack {
  floor: Floor;
}

async function start(report: typeof progress): Promise<Stack> {
  const stack = await startUpStack(report);
  try {
    const floor = await startFloor(stack.temporalAddress);
    report('floor worker polling its own task queue on the same server');
    return {
      ...stack,
      floor,
      stop: async () => {
        await floor.stop();
        await stack.stop();
      },
    };
  } catch (error) {
    await stack.stop();
    throw error;
  }
}

async function measure(stack: Stack) {
  const call = apiClient<Envelope>(stack);
  const otherKey = await stack.keyOf('bench-other');
  const deploy = async (name: string, as = call) => {
    const created = await as('POST', '/functions', { name, code: functionCode, runtime: 'node18' });
    if (created.status !== 201) throw new Error(`deploy answered ${created.status}: ${JSON.stringify(created.body)}`);
    return created.body.data!.id as string;
  };
  const syncFn = await deploy('bench-sync');
  // One function a round, so that a round counts the executions it started.
  const asyncFns: string[] = [];
  for (let round = 1; round <= counts.rounds; round++) asyncFns.push(await deploy(`bench-async-${round}`));
  // Two accounts bursting at once: one function of each a round.
  const pairs: [string, string][] = [];
  const callOther = apiClient<Envelope>({ apiUrl: stack.apiUrl, apiKey: otherKey });
  for (let round = 1; round <= counts.rounds; round++)
    pairs.push([await deploy(`bench-pair-${round}`), await deploy(`bench-pair-${round}`, callOther)]);
  progress(`deployed ${syncFn} and ${asyncFns.join(', ')}`);

  const invokeSync = async (x: number) => {
    const invoked = await call('POST', `/functions/${syncFn}/invoke`, { params: { x } });
    const result = invoked.body.data?.result as { x?: number } | undefined;
    if (invoked.status !== 200 || result?.x !== x + 1) {
      throw new Error(`sync invoke answered ${invoked.status}: ${JSON.stringify(invoked.body)}`);
    }
  };
  const runFloor = (index: number) => stack.floor.run(`floor-${index}-${Math.random().toString(36).slice(2)}`);

  // Warm-up: the workflow bundles, the isolate code paths, connection pools, both sides alike.
  await runConcurrent(counts.warmup, 1, (i) => invokeSync(-1 - i));
  await runConcurrent(counts.warmup, 1, (i) => runFloor(-1 - i));
  progress('warmed up');

  const latency: LatencyRound[] = [];
  const throughput: ThroughputRound[] = [];
  const twoAccounts: TwoAccountsRound[] = [];
  for (let round = 1; round <= counts.rounds; round++) {
    latency.push(await latencyRound(round, runFloor, invokeSync));
    throughput.push(await throughputRound(round, stack, asyncFns[round - 1]!, runFloor));
    const [mine, other] = pairs[round - 1]!;
    const accounts = [
      { apiKey: stack.apiKey, functionId: mine },
      { apiKey: otherKey, functionId: other },
    ] as [{ apiKey: string; functionId: string }, { apiKey: string; functionId: string }];
    twoAccounts.push(await measureTwoAccounts(stack, accounts, counts.asyncTotal, round));
  }
  const parallel = await runConcurrent(counts.syncParallel, 16, (i) => invokeSync(10_000 + i), progress, 'sync c=16');
  const syncParallel = summarise(parallel.durations);
  progress(`sync c=16: p50 ${ms(syncParallel.p50)}, p99 ${ms(syncParallel.p99)}`);
  const syncRate = counts.syncParallel / (parallel.elapsedMs / 1000);
  report({ latency, throughput, twoAccounts, syncParallel, syncRate });
}

interface LatencyRound {
  floorA: Latencies;
  floorC: Latencies;
  sync: Latencies;
  ratio: number;
}

/**
 * Floors (c) and (a), then synchronous invokes at concurrency 1: the latency ratio of one round.
 * The three are taken in turns, in `latencyBlocks` blocks each, so that every block of invokes is
 * compared with floors measured a second or two before it: on a host shared with other guests the
 * floors alone move by half within a minute, and both sides then move alike. Within a block the
 * runs stay back to back, as one client's calls are.
 */
async function latencyRound(
  round: number,
  runFloor: (index: number) => Promise<void>,
  invokeSync: (x: number) => Promise<void>,
): Promise<LatencyRound> {
  const isolateMs: number[] = [];
  const floorMs: number[] = [];
  const syncMs: number[] = [];
  const blockOf = (total: number, block: number) =>
    Math.floor((total * (block + 1)) / counts.latencyBlocks) - Math.floor((total * block) / counts.latencyBlocks);
  for (let block = 0; block < counts.latencyBlocks; block++) {
    // Floor (c): a bare isolate, created, running one tiny script, disposed.
    const isolateRun = await runConcurrent(blockOf(counts.isolates, block), 1, async () => {
      const isolate = new ivm.Isolate({ memoryLimit: 128 });
      try {
        const context = await isolate.createContext();
        await context.eval('JSON.stringify({ x: 2 })', { copy: true });
      } finally {
        isolate.dispose();
      }
    });
    isolateMs.push(...isolateRun.durations);
    // Floor (a): eager start + local no-op activity, started and awaited.
    const first = round * 1_000_000 + floorMs.length;
    const floorSerial = await runConcurrent(blockOf(counts.floorSerial, block), 1, (i) => runFloor(first + i));
    floorMs.push(...floorSerial.durations);
    const x = round * 1_000_000 + syncMs.length;
    const serial = await runConcurrent(blockOf(counts.syncSerial, block), 1, (i) => invokeSync(x + i));
    syncMs.push(...serial.durations);
  }
  const floorC = summarise(isolateMs);
  const floorA = summarise(floorMs);
  const sync = summarise(syncMs);
  const ratio = sync.p50 / (floorA.p50 + floorC.p50);
  progress(
    `round ${round} latency: sync c=1 p50 ${ms(sync.p50)} / (floor a ${ms(floorA.p50)} + floor c ${ms(floorC.p50)}) = ${ratio.toFixed(2)}`,
  );
  return { floorA, floorC, sync, ratio };
}

interface ThroughputRound {
  floorB: number;
  floorCpuPerRun: number;
  asyncRate: number;
  cpuPerRun: number;
  failed: number;
  ratio: number;
}

/** Floor (b), then asynchronous invokes, both at concurrency 64: the throughput ratio of one round. */
async function throughputRound(
  round: number,
  stack: Stack,
  functionId: string,
  runFloor: (index: number) => Promise<void>,
): Promise<ThroughputRound> {
  const floorCpu = sampleTree();
  const floorParallel = await runConcurrent(counts.floorTotal, 64, (i) => runFloor(round * 1_000_000 + 500_000 + i));
  const floorB = counts.floorTotal / (floorParallel.elapsedMs / 1000);
  const floorSpent = floorCpu.stop();
  reportCpu(`round ${round} floor b`, floorSpent, counts.floorTotal);
  const { throughput: asyncRate, cpuPerRun, failed } = await measureAsync(stack, functionId, round);
  const ratio = asyncRate / floorB;
  progress(
    `round ${round} throughput: async ${perSecond(asyncRate)} / floor b ${perSecond(floorB)} = ${ratio.toFixed(2)}`,
  );
  return { floorB, floorCpuPerRun: floorSpent.cpuSeconds / counts.floorTotal, asyncRate, cpuPerRun, failed, ratio };
}

/** Which processes of the tree spent the phase's CPU, per run. */
function reportCpu(phase: string, spent: ReturnType<ReturnType<typeof sampleTree>['stop']>, runs: number) {
  for (const { cpuSeconds, command } of spent.byProcess.slice(0, 5)) {
    progress(`${phase} cpu/run ${ms((cpuSeconds / runs) * 1000).padStart(8)}  ${command.slice(0, 90)}`);
  }
}

/** Asynchronous invokes at concurrency 64, from the first request until every one ended in PostgreSQL. */
async function measureAsync(stack: Stack, functionId: string, round: number) {
  const call = apiClient<Envelope>(stack);
  const db = new pg.Client({ connectionString: stack.databaseUrl });
  await db.connect();
  try {
    const count = async (status: string) => {
      const { rows } = await db.query<{ count: string }>(
        `select count(*) as count from executions where function_id = $1 and status ${status}`,
        [functionId],
      );
      return Number(rows[0]!.count);
    };
    const began = performance.now();
    const cpu = sampleTree();
    const accepted = await runConcurrent(
      counts.asyncTotal,
      64,
      async (x) => {
        const invoked = await call('POST', `/functions/${functionId}/invoke`, { params: { x }, async: true });
        if (invoked.status !== 202) throw new Error(`async invoke answered ${invoked.status}`);
      },
      progress,
      `round ${round} async accepted`,
    );
    progress(
      `round ${round} async: ${counts.asyncTotal} accepted in ${ms(accepted.elapsedMs)}; waiting for them to end`,
    );
    let lastReport = performance.now();
    for (let ended = await count(`<> 'running'`); ended < counts.asyncTotal; ended = await count(`<> 'running'`)) {
      if (performance.now() - began > 240_000) throw new Error(`only ${ended} executions ended after 240 s`);
      await new Promise((resolveWait) => setTimeout(resolveWait, 20));
      if (performance.now() - lastReport > 5_000) {
        progress(`async ended ${ended}/${counts.asyncTotal}`);
        lastReport = performance.now();
      }
    }
    const throughput = counts.asyncTotal / ((performance.now() - began) / 1000);
    const spent = cpu.stop();
    const cpuPerRun = spent.cpuSeconds / counts.asyncTotal;
    reportCpu(`round ${round} async`, spent, counts.asyncTotal);
    const failed = await count(`= 'failed'`);
    return { throughput, cpuPerRun, failed };
  } finally {
    await db.end();
  }
}

const median = (values: number[]) => summarise(values).p50;

function report(figures: {
  latency: LatencyRound[];
  throughput: ThroughputRound[];
  twoAccounts: TwoAccountsRound[];
  syncParallel: Latencies;
  syncRate: number;
}) {
  const { latency, throughput, twoAccounts, syncParallel, syncRate } = figures;
  const row = (label: string, l: Latencies) =>
    `  ${label.padEnd(50)} p50 ${ms(l.p50).padStart(9)}  p95 ${ms(l.p95).padStart(9)}  p99 ${ms(l.p99).padStart(9)}  (n=${l.count})`;
  const latencyRatio = median(latency.map((round) => round.ratio));
  const throughputRatio = median(throughput.map((round) => round.ratio));
  const cpuRatio = median(throughput.map((round) => round.cpuPerRun / round.floorCpuPerRun));
  const tailRatio = syncParallel.p99 / syncParallel.p50;
  const failed = throughput.reduce((sum, round) => sum + round.failed, 0);
  const verdict = (ok: boolean) => (ok ? 'PASS' : 'MISS');
  const fairShares = twoAccounts.every((r) => r.shares.every((share) => share >= 0.4 && share <= 0.6));
  const rounds = (label: string, values: string[]) => `  ${label.padEnd(50)} ${values.join('  ')}`;
  const lines = [
    rounds(
      'sync invoke over HTTP, c=1, p50 per round',
      latency.map((r) => ms(r.sync.p50)),
    ),
    rounds(
      'sync invoke over HTTP, c=1, p95 per round',
      latency.map((r) => ms(r.sync.p95)),
    ),
    rounds(
      'floor a: eager start + local no-op, c=1, p50',
      latency.map((r) => ms(r.floorA.p50)),
    ),
    rounds(
      'floor a: eager start + local no-op, c=1, p95',
      latency.map((r) => ms(r.floorA.p95)),
    ),
    rounds(
      'floor c: isolate create-run-dispose, p50',
      latency.map((r) => ms(r.floorC.p50)),
    ),
    rounds(
      'latency ratio sync / (a + c) per round',
      latency.map((r) => r.ratio.toFixed(2)),
    ),
    rounds(
      'async invokes completed per second, c=64',
      throughput.map((r) => perSecond(r.asyncRate)),
    ),
    rounds(
      'floor b: eager start + local no-op, c=64',
      throughput.map((r) => perSecond(r.floorB)),
    ),
    rounds(
      'throughput ratio async / floor b per round',
      throughput.map((r) => r.ratio.toFixed(2)),
    ),
    rounds(
      'two accounts at once, c=32 each: ended per second',
      twoAccounts.map((r) => perSecond(r.rate)),
    ),
    rounds(
      'two accounts: ratio to floor b per round',
      twoAccounts.map((r, index) => (r.rate / throughput[index]!.floorB).toFixed(2)),
    ),
    rounds(
      'two accounts: shares when the first ended',
      twoAccounts.map((r) => r.shares.map((share) => `${(share * 100).toFixed(0)}%`).join('/')),
    ),
    rounds(
      'cpu/run async / floor b (all processes)',
      throughput.map((r) => `${ms(r.cpuPerRun * 1000)} / ${ms(r.floorCpuPerRun * 1000)}`),
    ),
    row('sync invoke over HTTP, concurrency 16', syncParallel),
    `  ${'sync invoke over HTTP, concurrency 16, rate'.padEnd(50)} ${perSecond(syncRate)}`,
    `  latency    median of the rounds' sync p50 / (floor a p50 + floor c p50) = ${latencyRatio.toFixed(2)}  target <= ${targets.latencyRatio}  ${verdict(latencyRatio <= targets.latencyRatio)}`,
    `  throughput median of the rounds' async/s / floor b = ${throughputRatio.toFixed(2)}  target >= ${targets.throughputRatio}  ${verdict(throughputRatio >= targets.throughputRatio)}  (${failed} of ${counts.asyncTotal * counts.rounds} failed)`,
    `  shares     two accounts bursting, each within 40-60 % of the runs ended: ${verdict(fairShares)}`,
    `  cpu/run    median of the rounds' async / floor b = ${cpuRatio.toFixed(2)}  (CPU of the bench and its whole stack, all processes: what bounds throughput on a busy machine)`,
    `  tail       sync c=16 p99 / p50 = ${ms(syncParallel.p99)} / ${ms(syncParallel.p50)} = ${tailRatio.toFixed(2)}  target <= ${targets.tailRatio}  ${verdict(tailRatio <= targets.tailRatio)}`,
    `  counts: ${JSON.stringify(counts)}`,
  ];
  printReport('invoke', lines);
}

await runBench('invoke', { counts, start, measure });

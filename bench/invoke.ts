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
import { startUpStack, type UpStack } from './up-stack.ts';

const counts = {
  warmup: countFrom('BENCH_WARMUP', 30),
  syncSerial: countFrom('BENCH_SYNC_SERIAL', 200),
  syncParallel: countFrom('BENCH_SYNC_PARALLEL', 400),
  asyncTotal: countFrom('BENCH_ASYNC_TOTAL', 400),
  floorSerial: countFrom('BENCH_FLOOR_SERIAL', 200),
  floorTotal: countFrom('BENCH_FLOOR_TOTAL', 400),
  isolates: countFrom('BENCH_ISOLATES', 200),
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
  const deploy = async (name: string) => {
    const created = await call('POST', '/functions', { name, code: functionCode, runtime: 'node18' });
    if (created.status !== 201) throw new Error(`deploy answered ${created.status}: ${JSON.stringify(created.body)}`);
    return created.body.data!.id as string;
  };
  const syncFn = await deploy('bench-sync');
  const asyncFn = await deploy('bench-async');
  progress(`deployed ${syncFn} and ${asyncFn}`);

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

  // Floor (c): a bare isolate, created, running one tiny script, disposed.
  const isolateRun = await runConcurrent(counts.isolates, 1, async () => {
    const isolate = new ivm.Isolate({ memoryLimit: 128 });
    try {
      const context = await isolate.createContext();
      await context.eval('JSON.stringify({ x: 2 })', { copy: true });
    } finally {
      isolate.dispose();
    }
  });
  const floorC = summarise(isolateRun.durations);
  progress(`floor c (isolate create-run-dispose): p50 ${ms(floorC.p50)}`);

  // Floors (a) and (b): eager start + local no-op activity, started and awaited.
  const floorSerial = await runConcurrent(counts.floorSerial, 1, runFloor, progress, 'floor a c=1');
  const floorA = summarise(floorSerial.durations);
  progress(`floor a (eager start + local activity) c=1: p50 ${ms(floorA.p50)}`);
  const floorCpu = sampleTree();
  const floorParallel = await runConcurrent(counts.floorTotal, 64, (i) => runFloor(100_000 + i), progress, 'floor b');
  const floorB = counts.floorTotal / (floorParallel.elapsedMs / 1000);
  const floorSpent = floorCpu.stop();
  const floorCpuPerRun = floorSpent.cpuSeconds / counts.floorTotal;
  reportCpu('floor b', floorSpent, counts.floorTotal);
  progress(`floor b (the same, concurrency 64): ${perSecond(floorB)}`);

  const serial = await runConcurrent(counts.syncSerial, 1, invokeSync, progress, 'sync c=1');
  const syncSerial = summarise(serial.durations);
  progress(`sync c=1: p50 ${ms(syncSerial.p50)}`);
  const parallel = await runConcurrent(counts.syncParallel, 16, (i) => invokeSync(10_000 + i), progress, 'sync c=16');
  const syncParallel = summarise(parallel.durations);
  progress(`sync c=16: p50 ${ms(syncParallel.p50)}, p99 ${ms(syncParallel.p99)}`);

  const asynchronous = await measureAsync(stack, asyncFn);
  const syncRate = counts.syncParallel / (parallel.elapsedMs / 1000);
  report({ floorA, floorB, floorC, floorCpuPerRun, syncSerial, syncParallel, syncRate, ...asynchronous });
}

/** Which processes of the tree spent the phase's CPU, per run. */
function reportCpu(phase: string, spent: ReturnType<ReturnType<typeof sampleTree>['stop']>, runs: number) {
  for (const { cpuSeconds, command } of spent.byProcess.slice(0, 5)) {
    progress(`${phase} cpu/run ${ms((cpuSeconds / runs) * 1000).padStart(8)}  ${command.slice(0, 90)}`);
  }
}

/** Asynchronous invokes at concurrency 64, from the first request until every one ended in PostgreSQL. */
async function measureAsync(stack: Stack, functionId: string) {
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
      'async accepted',
    );
    progress(`async: ${counts.asyncTotal} accepted in ${ms(accepted.elapsedMs)}; waiting for them to end`);
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
    reportCpu('async', spent, counts.asyncTotal);
    const failed = await count(`= 'failed'`);
    progress(`async c=64: ${perSecond(throughput)} (${failed} failed)`);
    return { throughput, cpuPerRun, failed };
  } finally {
    await db.end();
  }
}

function report(figures: {
  floorA: Latencies;
  floorB: number;
  floorC: Latencies;
  /** CPU seconds of every process of the bench and its stack, per run of floor b and of the async phase. */
  floorCpuPerRun: number;
  cpuPerRun: number;
  syncSerial: Latencies;
  syncParallel: Latencies;
  syncRate: number;
  throughput: number;
  failed: number;
}) {
  const { floorA, floorB, floorC, syncSerial, syncParallel, syncRate, throughput } = figures;
  const row = (label: string, l: Latencies) =>
    `  ${label.padEnd(50)} p50 ${ms(l.p50).padStart(9)}  p95 ${ms(l.p95).padStart(9)}  p99 ${ms(l.p99).padStart(9)}  (n=${l.count})`;
  const latencyRatio = syncSerial.p50 / (floorA.p50 + floorC.p50);
  const throughputRatio = throughput / floorB;
  const tailRatio = syncParallel.p99 / syncParallel.p50;
  const verdict = (ok: boolean) => (ok ? 'PASS' : 'MISS');
  const lines = [
    row('sync invoke over HTTP, concurrency 1', syncSerial),
    row('sync invoke over HTTP, concurrency 16', syncParallel),
    `  ${'sync invoke over HTTP, concurrency 16, rate'.padEnd(50)} ${perSecond(syncRate)}`,
    `  ${'async invoke, concurrency 64, until ended'.padEnd(50)} ${perSecond(throughput)} (${counts.asyncTotal} invocations, ${figures.failed} failed)`,
    row('floor a: eager start + local no-op activity, c=1', floorA),
    `  ${'floor b: the same, concurrency 64'.padEnd(50)} ${perSecond(floorB)} (${counts.floorTotal} workflows)`,
    row('floor c: isolate create-run-dispose', floorC),
    `  latency    sync p50 / (floor a p50 + floor c p50) = ${ms(syncSerial.p50)} / (${ms(floorA.p50)} + ${ms(floorC.p50)}) = ${latencyRatio.toFixed(2)}  target <= ${targets.latencyRatio}  ${verdict(latencyRatio <= targets.latencyRatio)}`,
    `  throughput async/s / floor b = ${throughput.toFixed(1)} / ${floorB.toFixed(1)} = ${throughputRatio.toFixed(2)}  target >= ${targets.throughputRatio}  ${verdict(throughputRatio >= targets.throughputRatio)}`,
    `  cpu/run    async ${ms(figures.cpuPerRun * 1000)} / floor b ${ms(figures.floorCpuPerRun * 1000)} = ${(figures.cpuPerRun / figures.floorCpuPerRun).toFixed(2)}  (CPU of the bench and its whole stack, all processes: what bounds throughput on a busy machine)`,
    `  tail       sync c=16 p99 / p50 = ${ms(syncParallel.p99)} / ${ms(syncParallel.p50)} = ${tailRatio.toFixed(2)}  target <= ${targets.tailRatio}  ${verdict(tailRatio <= targets.tailRatio)}`,
    `  counts: ${JSON.stringify(counts)}`,
  ];
  printReport('invoke', lines);
}

await runBench('invoke', { counts, start, measure });

/**
 * Small measuring helpers for the benchmarks: the frame of a run and its progress lines, timed runs
 * at a fixed concurrency, percentiles.
 */
import { availableParallelism, cpus } from 'node:os';

export interface Latencies {
  count: number;
  p50: number;
  p95: number;
  p99: number;
  mean: number;
  max: number;
}

/** Nearest-rank percentile of already sorted samples, in the samples' unit. */
function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank]!;
}

export function summarise(samples: readonly number[]): Latencies {
  const sorted = [...samples].sort((a, b) => a - b);
  const mean = sorted.reduce((sum, value) => sum + value, 0) / Math.max(1, sorted.length);
  return {
    count: sorted.length,
    p50: percentile(sorted, 50),
    p95: percentile(sorted, 95),
    p99: percentile(sorted, 99),
    mean,
    max: sorted.at(-1) ?? Number.NaN,
  };
}

export type Progress = (line: string) => void;

const startedAt = performance.now();

/** Seconds since the benchmark began (this module loads with it). */
const runSeconds = () => (performance.now() - startedAt) / 1000;

export const progress: Progress = (line) =>
  process.stdout.write(`[bench ${runSeconds().toFixed(1).padStart(6)} s] ${line}\n`);

/** A count from the environment variable `name` (the benchmarks' BENCH_* overrides), else `fallback`. */
export const countFrom = (name: string, fallback: number) => Number(process.env[name] ?? fallback);

/** Prints a benchmark's report: a heading naming the run and the machine (then `about`), `lines`, the run time. */
export function printReport(name: string, lines: string[], about = '') {
  const heading = `Neoflow ${name} benchmark, ${new Date().toISOString()}, ${availableParallelism()} cores, node ${process.version}`;
  const total = `  total run time ${runSeconds().toFixed(1)} s`;
  process.stdout.write(['', heading + about, ...lines, total, ''].join('\n') + '\n');
}

/**
 * The frame of `npm run bench:<name>`: prints the machine, `counts` and `notes`, starts the stack,
 * measures on it and stops it whatever happens. A benchmark exits 0 whatever its figures; a failure
 * to measure is printed and sets exit code 1.
 */
export async function runBench<Stack extends { stop(): Promise<void> }>(
  name: string,
  run: {
    counts: object;
    notes?: string[];
    start: (progress: Progress) => Promise<Stack>;
    measure: (stack: Stack) => Promise<void>;
  },
) {
  try {
    progress(
      `machine: ${availableParallelism()} cores (${cpus()[0]?.model ?? 'unknown cpu'}), node ${process.version}`,
    );
    progress(`counts: ${JSON.stringify(run.counts)}`);
    for (const note of run.notes ?? []) progress(note);
    const stack = await run.start(progress);
    try {
      await run.measure(stack);
    } finally {
      progress('stopping api, worker and services');
      await stack.stop();
      progress('stopped');
    }
  } catch (error) {
    const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
    process.stderr.write(`bench:${name} failed: ${message}\n`);
    process.exitCode = 1;
  }
}

/**
 * Runs `task(i)` for i in [0, total) with at most `concurrency` in flight; returns each call's
 * wall-clock duration in milliseconds and the elapsed time of the whole run.
 */
export async function runConcurrent(
  total: number,
  concurrency: number,
  task: (index: number) => Promise<void>,
  progress?: Progress,
  label = '',
): Promise<{ durations: number[]; elapsedMs: number }> {
  const durations: number[] = [];
  let next = 0;
  let done = 0;
  const step = Math.max(1, Math.floor(total / 4));
  const startedAt = performance.now();
  const lane = async () => {
    while (next < total) {
      const index = next++;
      const began = performance.now();
      await task(index);
      durations.push(performance.now() - began);
      done++;
      if (progress && done % step === 0 && done < total) progress(`${label} ${done}/${total}`);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, total) }, lane));
  return { durations, elapsedMs: performance.now() - startedAt };
}

export const ms = (value: number) => `${value.toFixed(1)} ms`;
export const perSecond = (value: number) => `${value.toFixed(1)}/s`;

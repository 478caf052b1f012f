/** Small measuring helpers for the benchmarks: timed runs at a fixed concurrency, percentiles. */

export interface Latencies {
  count: number;
  p50: number;
  p95: number;
  p99: number;
  mean: number;
}

/** Nearest-rank percentile of already sorted samples, in the samples' unit. */
export function percentile(sorted: readonly number[], p: number): number {
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
  };
}

export type Progress = (line: string) => void;

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

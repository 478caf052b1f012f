/**
 * Loaded into the processes of a benchmark's stack with `NODE_OPTIONS=--import <this file>`; active
 * only in the one whose command is `BENCH_PROBE_COMMAND` (`neoflow api`, say). Once a second it
 * appends one JSON line to `BENCH_PROBE_FILE`: the time, the event loop's delay over the second
 * (p50, p99, max, in ms beyond the 10 ms timer that `monitorEventLoopDelay` samples with) and the
 * garbage collector's pauses (count, total and longest ms, and the longest of a full, mark-compact
 * one). Nothing of it is part of Neoflow.
 */
import { appendFileSync } from 'node:fs';
import { constants, monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';

const file = process.env.BENCH_PROBE_FILE;
if (file && process.argv[2] === process.env.BENCH_PROBE_COMMAND) {
  const resolutionMs = 10;
  const delay = monitorEventLoopDelay({ resolution: resolutionMs });
  delay.enable();
  let gc = { count: 0, ms: 0, maxMs: 0, majorMaxMs: 0 };
  new PerformanceObserver((entries) => {
    for (const entry of entries.getEntries()) {
      gc.count++;
      gc.ms += entry.duration;
      gc.maxMs = Math.max(gc.maxMs, entry.duration);
      if ((entry as { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR)
        gc.majorMaxMs = Math.max(gc.majorMaxMs, entry.duration);
    }
  }).observe({ entryTypes: ['gc'] });
  // The histogram holds each timer's whole interval: what the loop added is the part beyond it.
  const ms = (nanoseconds: number) => Number(Math.max(0, nanoseconds / 1e6 - resolutionMs).toFixed(2));
  setInterval(() => {
    const line = {
      at: Date.now(),
      loop: { p50: ms(delay.percentile(50)), p99: ms(delay.percentile(99)), max: ms(delay.max) },
      gc: {
        count: gc.count,
        ms: Number(gc.ms.toFixed(2)),
        maxMs: Number(gc.maxMs.toFixed(2)),
        majorMaxMs: Number(gc.majorMaxMs.toFixed(2)),
      },
    };
    appendFileSync(file, `${JSON.stringify(line)}\n`);
    delay.reset();
    gc = { count: 0, ms: 0, maxMs: 0, majorMaxMs: 0 };
  }, 1000).unref();
}

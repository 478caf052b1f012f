/**
 * Account B's client in bench:hook-flood, a process of its own as the flood's `wrk` is: the bench's
 * own work (reading the stack's output and /proc) would otherwise delay B's timers and answers in
 * the loop that times them.
 * `node bench/hook-flood-client.ts <url> <api key> <pace ms>` reads one GET (untimed, so that its
 * first timed one does not load `fetch`), prints `ready`, then for each line `<seconds>` on its
 * input sends GET <url> every <pace ms> for that long, not waiting for the answers, and prints one
 * JSON line: each answer's time in ms, the slowest by second sent, the failures and its own loop's
 * longest delay over the block.
 */
import { createInterface } from 'node:readline';
import { monitorEventLoopDelay } from 'node:perf_hooks';

export interface ClientReport {
  times: number[];
  maxBySecond: number[];
  failed: number;
  loopMaxMs: number;
}

const [url, apiKey, paceText] = process.argv.slice(2);
const paceMs = Number(paceText);
const resolutionMs = 10;

const get = () =>
  fetch(url!, { headers: { 'X-API-Key': apiKey! } }).then(async (response) => {
    await response.arrayBuffer();
    return response.status;
  });

async function block(seconds: number): Promise<ClientReport> {
  const loop = monitorEventLoopDelay({ resolution: resolutionMs });
  loop.enable();
  const report: ClientReport = {
    times: [],
    maxBySecond: Array.from({ length: seconds }, () => 0),
    failed: 0,
    loopMaxMs: 0,
  };
  const startedAt = performance.now();
  const timed = async (sent: number) => {
    const status = await get().catch(() => 0);
    if (status !== 200) return void report.failed++;
    const took = performance.now() - sent;
    report.times.push(took);
    const second = Math.min(seconds - 1, Math.floor((sent - startedAt) / 1000));
    report.maxBySecond[second] = Math.max(report.maxBySecond[second]!, took);
  };
  const inFlight: Promise<void>[] = [];
  const pacer = setInterval(() => inFlight.push(timed(performance.now())), paceMs);
  await new Promise((resolveBlock) => setTimeout(resolveBlock, seconds * 1000));
  clearInterval(pacer);
  await Promise.all(inFlight);
  loop.disable();
  report.loopMaxMs = Math.max(0, loop.max / 1e6 - resolutionMs);
  return report;
}

await get();
process.stdout.write('ready\n');
for await (const line of createInterface({ input: process.stdin })) {
  process.stdout.write(`${JSON.stringify(await block(Number(line)))}\n`);
}

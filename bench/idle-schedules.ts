/**
 * What idle Temporal Schedules cost the dev server by themselves (issue 34): on a dev server as
 * `neoflow up` starts it (SQLite in WAL mode), with no worker and nothing else, creates Schedules
 * that never fire in the window (once a year) in steps of BENCH_IDLE_SCHEDULES (0,1000,3000 by
 * default), and after a settling pause reads the server's CPU (% of one core) and RSS over a steady
 * window, the load average beside them; then, at the last step, the same window while every
 * Schedule is described once per BENCH_IDLE_DESCRIBE_SECONDS (30, the reconciler's default pass),
 * 8 at a time, as the reconciler's pass did; and the same window while they are listed once per
 * pass, a page of 1,000 an RPC, and a tenth of them described, as the pass does now (its rotating
 * slice). A benchmark, not a test: it exits 0 whatever its figures.
 */
import { join } from 'node:path';
import { loadavg } from 'node:os';
import { rm } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client, Connection } from '@temporalio/client';
import { loadConfig } from '../src/config.ts';
import { freePort } from '../src/net/ports.ts';
import { ensureGoProgram, temporalCli } from '../src/stack/binaries.ts';
import { startTemporalDev } from '../src/stack/temporal-dev.ts';
import { scratchDataDir } from '../test/support/scratch-services.ts';
import { countFrom, progress } from './measure.ts';
import { sampleGroups } from './proc.ts';

const steps = (process.env.BENCH_IDLE_SCHEDULES ?? '0,1000,3000').split(',').map(Number);
const settleSeconds = countFrom('BENCH_IDLE_SETTLE_SECONDS', 20);
const steadySeconds = countFrom('BENCH_IDLE_STEADY_SECONDS', 60);
const describeSeconds = countFrom('BENCH_IDLE_DESCRIBE_SECONDS', 30);
/** One in this many listed schedules described each pass (the reconciler's 10); 0: the listing alone. */
const describedOneIn = countFrom('BENCH_IDLE_DESCRIBE_ONE_IN', 10);
const load = () => loadavg()[0]!.toFixed(2);

const config = loadConfig();
const scratch = await scratchDataDir('neoflow-bench-idle-');
const server = await startTemporalDev({
  temporalPath: await ensureGoProgram(temporalCli, config.binDir, progress),
  port: await freePort(),
  uiPort: undefined,
  uiCodecEndpoint: undefined,
  dbFile: join(scratch, 'temporal.db'),
  logFile: join(scratch, 'temporal.log'),
  namespace: config.temporal.namespace,
});
const connection = await Connection.connect({ address: server.address });
const client = new Client({ connection, namespace: config.temporal.namespace });

/** The server's CPU and RSS while `work` runs, printed as a line and as JSON. */
async function measure(label: string, schedules: number, work: () => Promise<void>) {
  const sampler = sampleGroups({ temporal: /temporal server start-dev/ });
  await work();
  const { temporal } = sampler.stop();
  progress(
    `${label}: temporal ${temporal.cpuPercent.toFixed(1)}% of one core, rss ${temporal.rssMiB.toFixed(0)} MiB (load ${load()})`,
  );
  const json = {
    label,
    schedules,
    temporalCpu: Math.round(temporal.cpuPercent * 10) / 10,
    temporalRssMiB: Math.round(temporal.rssMiB),
    load: load(),
  };
  process.stdout.write(`${JSON.stringify(json)}\n`);
}

try {
  let created = 0;
  for (const target of steps) {
    for (; created < target; created += 16) {
      await Promise.all(
        Array.from({ length: Math.min(16, target - created) }, (_, i) =>
          client.schedule.create({
            scheduleId: `idle-${created + i}`,
            // Once a year, at a minute of its own: never in the window.
            spec: { cronExpressions: [`${(created + i) % 60} 3 1 1 *`] },
            action: { type: 'startWorkflow', workflowType: 'scheduledFire', taskQueue: 'idle-bench', args: [] },
          }),
        ),
      );
    }
    created = target;
    await sleep(settleSeconds * 1000);
    await measure(`${target} idle schedules`, target, () => sleep(steadySeconds * 1000));
  }
  const describing = async () => {
    const until = Date.now() + steadySeconds * 1000;
    while (Date.now() < until) {
      const began = Date.now();
      for (let from = 0; from < created; from += 8) {
        const ids = Array.from({ length: Math.min(8, created - from) }, (_, i) => `idle-${from + i}`);
        await Promise.all(ids.map((id) => client.schedule.getHandle(id).describe()));
      }
      await sleep(Math.max(0, began + describeSeconds * 1000 - Date.now()));
    }
  };
  await measure(`${created} schedules, each described every ${describeSeconds} s`, created, describing);
  let pass = 0;
  const listing = async () => {
    const until = Date.now() + steadySeconds * 1000;
    while (Date.now() < until) {
      const began = Date.now();
      const listed: string[] = [];
      for await (const summary of client.schedule.list({ pageSize: 1000 })) listed.push(summary.scheduleId);
      const slice = describedOneIn ? listed.filter((_, index) => index % describedOneIn === pass % describedOneIn) : [];
      for (let from = 0; from < slice.length; from += 8) {
        await Promise.all(slice.slice(from, from + 8).map((id) => client.schedule.getHandle(id).describe()));
      }
      pass += 1;
      await sleep(Math.max(0, began + describeSeconds * 1000 - Date.now()));
    }
  };
  await measure(
    `${created} schedules, listed every ${describeSeconds} s, ${describedOneIn ? `one in ${describedOneIn}` : 'none'} described`,
    created,
    listing,
  );
} finally {
  await connection.close();
  await server.stop();
  await rm(scratch, { recursive: true, force: true });
}

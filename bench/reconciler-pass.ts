/**
 * `npm run bench:reconciler`: what one pass of the reconciler costs each process of the README
 * stack at N mostly idle automations (issue 34). On one `neoflow up` it creates, over the API, N
 * automations in bench:scale's mix (40 % watchers, 30 % price triggers over 10 sources, 30 % hourly
 * schedules) for each N of BENCH_RECONCILER_NS in turn, then alternates windows with the
 * reconciler's loop stopped (terminated) and running a pass every BENCH_RECONCILER_INTERVAL_SECONDS
 * (5 by default: more passes in a window than the default 30 s gives, the same pass). A pass's CPU
 * by process is the difference of the windows over the passes made (counted in the loop's
 * history, with their wall time and history events). The workers are the worker process and the
 * API's own worker, which polls the same task queue and may run the loop's workflow tasks and
 * their local activities. With BENCH_RECONCILER_CPU_PROF set to a directory, the stack's Node.js
 * processes write CPU profiles there (bench/profile-window.ts reads a window, printed with each).
 * A benchmark, not a test: it exits 0 whatever its figures.
 */
import { loadavg } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client, Connection, WorkflowNotFoundError } from '@temporalio/client';
import proto, { type temporal } from '@temporalio/proto';
import { loadConfig } from '../src/config.ts';
import { pricePollerId } from '../src/automations/price/price-source-key.ts';
import { activePriceSources } from '../src/automations/price/automation-price.sql.ts';
import { ensureRecoveryLoop, recoveryWorkflowId } from '../src/recovery/recovery-loop.ts';
import { startPriceServer } from '../test/support/price-server.ts';
import { createAutomations, deployBenchAction, randomAddress } from './automation-runs.ts';
import { countFrom, printReport, progress, runBench } from './measure.ts';
import { describeActivity, sampleActivity, type Activity } from './pg-activity.ts';
import { sampleGroups } from './proc.ts';
import { mixTriggers, share, type Kind } from './scale-mix.ts';
import { startScaleStack, type ScaleStack } from './scale-stack.ts';
import { apiClient } from './scratch-stack.ts';

const counts = {
  ns: (process.env.BENCH_RECONCILER_NS ?? '3000,10000')
    .split(',')
    .map(Number)
    .sort((a, b) => a - b),
  intervalSeconds: countFrom('BENCH_RECONCILER_INTERVAL_SECONDS', 5),
  windowSeconds: countFrom('BENCH_RECONCILER_WINDOW_SECONDS', 60),
  /** Pairs of windows (stopped, running) per N, alternated. */
  rounds: countFrom('BENCH_RECONCILER_ROUNDS', 2),
  settleSeconds: countFrom('BENCH_RECONCILER_SETTLE_SECONDS', 30),
  /** Calls of each kind a pass makes, made on their own to cost them (a tenth as many listings). */
  probeCalls: countFrom('BENCH_RECONCILER_PROBE_CALLS', 200),
  sources: 10,
  pricePollSeconds: 30,
  createConcurrency: countFrom('BENCH_CREATE_CONCURRENCY', 16),
};

const groups = {
  worker: /neoflow\.js worker/,
  api: /neoflow\.js api/,
  temporal: /temporal server start-dev/,
  postgres: /(^|\/)postgres(:| |$)/,
};
type Group = keyof typeof groups;

const load = () =>
  loadavg()
    .map((value) => value.toFixed(2))
    .join(' ');

interface Window {
  running: boolean;
  seconds: number;
  cpuPercent: Record<Group, number>;
  pg: Activity;
  passes?: Passes;
  /** What the reconciler logged in the window: schedules it found stalled, by kind, and triggers not converged. */
  logged: Record<string, number>;
  load: string;
}

/** The reconciler's warnings in `text` (the stack's log lines), counted by stall kind. */
function reconcilerWarnings(text: string) {
  const counted: Record<string, number> = {};
  for (const line of text.split('\n')) {
    const stall = /schedule stalled.*"kind":"([a-z-]+)"/.exec(line);
    const name = stall ? `stalled ${stall[1]}` : line.includes('trigger not converged') ? 'not converged' : undefined;
    if (name) counted[name] = (counted[name] ?? 0) + 1;
  }
  return counted;
}

/** The passes a run of the loop made within a window, from its history. */
interface Passes {
  count: number;
  /** Wall time of each pass, from its start (the run's start or its last timer) to its timer. */
  wallMs: number[];
  /** History events each pass wrote (markers of its local activities, workflow tasks, its timer). */
  events: number;
}

const { EventType } = proto.temporal.api.enums.v1;

const epochMs = (time: temporal.api.history.v1.IHistoryEvent['eventTime']) =>
  Number(time?.seconds ?? 0) * 1000 + Math.floor((time?.nanos ?? 0) / 1e6);

/** The passes that both began and ended within [from, to) in the history of the loop's run. */
async function passesOf(client: Client, workflowId: string, runId: string, from: number, to: number): Promise<Passes> {
  const history = await client.workflow.getHandle(workflowId, runId).fetchHistory();
  const events = history.events ?? [];
  const wallMs: number[] = [];
  let began: number | undefined;
  let beganIndex = 0;
  let passEvents = 0;
  for (const [index, event] of events.entries()) {
    const at = epochMs(event.eventTime);
    if (
      event.eventType === EventType.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED ||
      event.eventType === EventType.EVENT_TYPE_TIMER_FIRED
    ) {
      began = at;
      beganIndex = index;
    } else if (event.eventType === EventType.EVENT_TYPE_TIMER_STARTED && began !== undefined) {
      if (began >= from && at < to) {
        wallMs.push(at - began);
        passEvents += index - beganIndex;
      }
      began = undefined;
    }
  }
  return { count: wallMs.length, wallMs, events: passEvents };
}

async function window(running: boolean, stack: ScaleStack, client: Client, taskQueue: string): Promise<Window> {
  const id = recoveryWorkflowId(taskQueue);
  await client.workflow
    .getHandle(id)
    .terminate('bench:reconciler alternates windows')
    .catch((error: unknown) => {
      if (!(error instanceof WorkflowNotFoundError)) throw error;
    });
  // A pass in flight when the loop stopped ends meanwhile, outside the window.
  await sleep(counts.settleSeconds * 1000);
  const from = Date.now();
  const logFrom = stack.output().length;
  const sampler = sampleGroups(groups);
  const activity = await sampleActivity(stack.orm);
  let runId: string | undefined;
  if (running) {
    await ensureRecoveryLoop(client, taskQueue, counts.intervalSeconds * 1000);
    runId = (await client.workflow.getHandle(id).describe()).runId;
  }
  await sleep(counts.windowSeconds * 1000);
  const sampled = sampler.stop();
  const pg = await activity.stop();
  const to = Date.now();
  const cpuPercent = Object.fromEntries(
    Object.entries(sampled).map(([name, sample]) => [name, sample.cpuPercent]),
  ) as Record<Group, number>;
  const passes = runId ? await passesOf(client, id, runId, from, to) : undefined;
  const logged = reconcilerWarnings(stack.output().slice(logFrom));
  const result: Window = { running, seconds: (to - from) / 1000, cpuPercent, pg, passes, logged, load: load() };
  progress(`${running ? 'running' : 'stopped'}: ${windowLine(result)} (window ${from}–${to} ms since the epoch)`);
  return result;
}

/**
 * What each kind of call a pass makes costs the Temporal server, made on their own with the loop
 * stopped: CPU ms a call above the stopped windows' mean, `times` calls in a row each.
 */
async function probeCalls(client: Client, stack: ScaleStack, taskQueue: string, idle: number, lines: string[]) {
  const times = counts.probeCalls;
  const sources = await activePriceSources(stack.orm.em.fork());
  const scheduleIds: string[] = [];
  for await (const summary of client.schedule.list({ pageSize: 1000 })) scheduleIds.push(summary.scheduleId);
  const probes: Record<string, (index: number) => Promise<unknown>> = {
    'list every schedule (pages of 1,000)': async () => {
      for await (const summary of client.schedule.list({ pageSize: 1000 })) void summary;
    },
    // Raw: the bench holds no payload key to decode the schedule's action with.
    'describe a schedule': (index) =>
      client.workflowService.describeSchedule({
        namespace: client.options.namespace,
        scheduleId: scheduleIds[index % scheduleIds.length],
      }),
    "start a price source's poller, running (USE_EXISTING)": (index) =>
      client.workflow.start('priceSourcePoller', {
        workflowId: pricePollerId(sources[index % sources.length]!),
        taskQueue,
        args: [sources[index % sources.length]!],
        workflowIdConflictPolicy: 'USE_EXISTING',
      }),
    'list the retired pollers (visibility query)': async () => {
      const query = `WorkflowType = 'pricePoller' AND ExecutionStatus = 'Running' AND TaskQueue = '${taskQueue}'`;
      for await (const workflow of client.workflow.list({ query })) void workflow;
    },
  };
  for (const [name, call] of Object.entries(probes)) {
    const calls = name.startsWith('list') ? Math.max(1, Math.round(times / 10)) : times;
    const began = performance.now();
    const sampler = sampleGroups({ temporal: groups.temporal });
    for (let index = 0; index < calls; index++) await call(index);
    const { temporal } = sampler.stop();
    const seconds = (performance.now() - began) / 1000;
    const cpuMs = ((temporal.cpuPercent - idle) * seconds * 10) / calls;
    const line = `    temporal cpu ms a call, ${name}: ${cpuMs.toFixed(1)} (${calls} calls, ${((seconds * 1000) / calls).toFixed(1)} ms each; load ${load()})`;
    progress(line.trim());
    lines.push(line);
  }
}

const describeCpu = (cpu: Record<Group, number>, unit: string) =>
  (Object.keys(groups) as Group[]).map((name) => `${name} ${cpu[name].toFixed(1)}${unit}`).join(', ');

function windowLine(window: Window) {
  const passes = window.passes;
  const passText = passes
    ? `; ${passes.count} passes, wall ${median(passes.wallMs).toFixed(0)} ms median, ${(passes.events / Math.max(1, passes.count)).toFixed(0)} history events a pass`
    : '';
  const logged = Object.entries(window.logged).map(([name, count]) => `${name} ${count}`);
  const loggedText = logged.length > 0 ? `; logged ${logged.join(', ')}` : '';
  return `cpu ${describeCpu(window.cpuPercent, '%')}${passText}${loggedText}; ${describeActivity(window.pg)}; load ${window.load}`;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? Number.NaN : sorted[Math.floor(sorted.length / 2)]!;
};

/** CPU ms a pass by process: a running window's CPU above the stopped windows' mean, over its passes. */
function perPass(running: Window, stopped: Window[]) {
  const mean = (name: Group) => stopped.reduce((sum, w) => sum + w.cpuPercent[name], 0) / stopped.length;
  const passes = running.passes?.count ?? 0;
  return Object.fromEntries(
    (Object.keys(groups) as Group[]).map((name) => [
      name,
      ((running.cpuPercent[name] - mean(name)) * running.seconds * 10) / Math.max(1, passes),
    ]),
  ) as Record<Group, number>;
}

async function measure(stack: ScaleStack) {
  const prices = await startPriceServer();
  const config = loadConfig();
  const connection = await Connection.connect({ address: stack.temporalAddress });
  const client = new Client({ connection, namespace: config.temporal.namespace });
  try {
    const call = apiClient(stack);
    const creator = { call, action: await deployBenchAction(call), concurrency: counts.createConcurrency };
    const triggers = mixTriggers(randomAddress(), prices.url, counts.sources, counts.pricePollSeconds);
    const made: Record<Kind, number> = { watchers: 0, prices: 0, schedules: 0 };
    const lines: string[] = [];
    for (const n of counts.ns) {
      for (const kind of Object.keys(share) as Kind[]) {
        const count = Math.round(n * share[kind]) - made[kind];
        if (count <= 0) continue;
        await createAutomations(creator, kind, { name: kind, count, from: made[kind], trigger: triggers[kind] });
        made[kind] += count;
      }
      const windows: Window[] = [];
      for (let round = 0; round < counts.rounds; round++) {
        windows.push(await window(false, stack, client, config.temporal.taskQueue));
        windows.push(await window(true, stack, client, config.temporal.taskQueue));
      }
      const stopped = windows.filter((w) => !w.running);
      lines.push(`  N=${n}:`);
      for (const w of windows) lines.push(`    ${w.running ? 'running' : 'stopped'}: ${windowLine(w)}`);
      const idle = stopped.reduce((sum, w) => sum + w.cpuPercent.temporal, 0) / stopped.length;
      await probeCalls(client, stack, config.temporal.taskQueue, idle, lines);
      for (const w of windows.filter((w) => w.running)) {
        const cpu = perPass(w, stopped);
        const total = cpu.worker + cpu.api + cpu.temporal + cpu.postgres;
        lines.push(
          `    cpu ms a pass: ${describeCpu(cpu, '')}, all ${total.toFixed(0)} (at 30 s: ${(total / 300).toFixed(2)} % of a core)`,
        );
        process.stdout.write(
          `${JSON.stringify({ n, passes: w.passes?.count, passWallMs: median(w.passes?.wallMs ?? []), cpuMsPerPass: cpu, load: w.load })}\n`,
        );
      }
    }
    printReport('reconciler', [...lines, `  counts: ${JSON.stringify(counts)}`], `, load now ${load()}`);
  } finally {
    // The stack's API ensures the loop only at its start: leave it running as the stack had it.
    await ensureRecoveryLoop(client, config.temporal.taskQueue, config.recovery.intervalMs).catch(() => undefined);
    await connection.close();
    await prices.close();
  }
}

await runBench('reconciler', {
  counts,
  notes: [`load average at start: ${load()}`],
  start: (report) =>
    startScaleStack(
      report,
      process.env.BENCH_RECONCILER_CPU_PROF
        ? { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${process.env.BENCH_RECONCILER_CPU_PROF}` }
        : {},
    ),
  measure,
});

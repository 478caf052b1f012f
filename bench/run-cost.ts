/**
 * `npm run bench:run-cost`: what one automation run costs, in CPU milliseconds of the worker, the
 * Temporal server and PostgreSQL, and in history events. On the automations bench's stack (ONE
 * worker as a child process, the API in this process without a worker of its own, the Temporal dev
 * server, embedded PostgreSQL), an idle window gives each process's cost of standing by; then
 * BENCH_RUN_COST_SCHEDULES schedules firing every second run a function action (the bench's
 * function, one log line), and each steady window's CPU above the idle rate, divided by the runs
 * recorded in it, is the cost of a run. One fire's histories (`scheduledFire` and its `runAction`
 * child) are then counted by event type: each workflow task, local-activity marker and
 * search-attribute upsert is a history write on the server (an upsert a visibility write too).
 * With BENCH_AUTOMATIONS_CPU_PROF set to a directory, the worker writes its CPU profile there
 * (bench/profile-window.ts cuts each printed window out of it). Prints figures; exits 0 either way.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import proto from '@temporalio/proto';
import { createAutomations, deactivate, deployBenchAction, type Creator } from './automation-runs.ts';
import { startAutomationsStack, type AutomationsBenchStack } from './automations-stack.ts';
import { countFrom, printReport, progress, runBench } from './measure.ts';
import { loadLine, sampleGroups } from './proc.ts';
import { apiClient } from './scratch-stack.ts';

const counts = {
  schedules: countFrom('BENCH_RUN_COST_SCHEDULES', 4),
  idleSeconds: countFrom('BENCH_RUN_COST_IDLE_SECONDS', 20),
  settleSeconds: countFrom('BENCH_RUN_COST_SETTLE_SECONDS', 15),
  windowSeconds: countFrom('BENCH_RUN_COST_WINDOW_SECONDS', 30),
  windows: countFrom('BENCH_RUN_COST_WINDOWS', 3),
};

/** The processes whose CPU a run costs, by command line; the bench itself (the API) is left out. */
const groups = {
  worker: /neoflow\.js worker|worker\/main\.ts/,
  temporal: /temporal server start-dev/,
  postgres: /(^|\/)postgres(:| |$)/,
};
type Group = keyof typeof groups;

const load = loadLine;

/** CPU milliseconds per second of each group over `seconds`, and the window's bounds. */
async function cpuWindow(seconds: number) {
  const from = Date.now();
  const loadBefore = load();
  const sampler = sampleGroups(groups);
  await sleep(seconds * 1000);
  const sample = sampler.stop();
  const to = Date.now();
  const msPerSecond = Object.fromEntries(
    (Object.keys(groups) as Group[]).map((name) => [name, sample[name].cpuPercent * 10]),
  ) as Record<Group, number>;
  return { from, to, msPerSecond, load: `${loadBefore} → ${load()}` };
}

/** Runs of `automationIds` recorded in [from, to), and PostgreSQL's commits meanwhile are read apart. */
async function runsRecorded(stack: AutomationsBenchStack, automationIds: string[], from: number, to: number) {
  const [row] = await stack.orm.em
    .fork()
    .execute<{ count: string }[]>(
      `select count(*) as "count" from "automation_runs" where "automation_id" in (?) and "started_at" >= ? and "started_at" < ?`,
      [automationIds, new Date(from), new Date(to)],
    );
  return Number(row?.count ?? 0);
}

async function commits(stack: AutomationsBenchStack) {
  const [row] = await stack.orm.em
    .fork()
    .execute<{ commits: string }[]>(
      `select xact_commit as "commits" from pg_stat_database where datname = current_database()`,
    );
  return Number(row?.commits ?? 0);
}

/**
 * BENCH_RUN_COST_TRIGGER=manual: each automation fired over the API once a second instead of by its
 * schedule, so that the run's own cost shows apart from the Schedule's and its `scheduledFire`.
 */
const manual = process.env.BENCH_RUN_COST_TRIGGER === 'manual';

function fireByHand(creator: Creator, ids: string[]) {
  let stopped = false;
  const loop = (async () => {
    for (let next = Date.now(); !stopped; next += 1000) {
      await Promise.all(ids.map((id) => creator.call('POST', `/automations/${id}/trigger`)));
      await sleep(Math.max(0, next + 1000 - Date.now()));
    }
  })();
  return {
    async stop() {
      stopped = true;
      await loop;
    },
  };
}

interface RunWindow {
  runs: number;
  seconds: number;
  perRun: Record<Group, number>;
  commitsPerRun: number;
  load: string;
}

/** One fire's histories: its events by type, its workflow tasks, markers and upserts. */
async function fireHistories(stack: AutomationsBenchStack, automationId: string) {
  const [run] = await stack.orm.em
    .fork()
    .execute<{ id: string; scheduled_at: string | null }[]>(
      `select "id", "trigger"->>'scheduledAt' as "scheduled_at" from "automation_runs" where "automation_id" = ? and "status" <> 'running' order by "started_at" desc limit 1`,
      [automationId],
    );
  if (!run) return [`  no ended run of ${automationId} to show`];
  // A schedule names each workflow it starts `<schedule id>-<scheduled time, to the second>`.
  const workflows: [string, string][] = [['runAction', run.id]];
  if (run.scheduled_at) {
    workflows.unshift(['scheduledFire', `${automationId}-${run.scheduled_at.replace(/\.\d{3}Z$/, 'Z')}`]);
  }
  const lines: string[] = [];
  for (const [label, workflowId] of workflows) {
    const history = await stack.temporal.client.workflow.getHandle(workflowId).fetchHistory();
    const byType = new Map<string, number>();
    for (const event of history.events ?? []) {
      const type = (proto.temporal.api.enums.v1.EventType[event.eventType ?? 0] ?? 'unknown').replace(
        /^EVENT_TYPE_/,
        '',
      );
      byType.set(type, (byType.get(type) ?? 0) + 1);
    }
    const types = [...byType].map(([type, count]) => `${type.toLowerCase()} ${count}`).join(', ');
    lines.push(`  ${label} (${workflowId}): ${history.events?.length ?? 0} events: ${types}`);
  }
  return lines;
}

async function measure(stack: AutomationsBenchStack) {
  const call = apiClient(stack);
  const creator: Creator = { call, action: await deployBenchAction(call), concurrency: 4 };
  await sleep(5_000);
  const idle = await cpuWindow(counts.idleSeconds);
  progress(`idle: ${JSON.stringify(rounded(idle.msPerSecond))} CPU ms/s, load ${idle.load}`);
  const { ids } = await createAutomations(
    creator,
    manual ? 'yearly schedules, fired by hand' : 'every-second schedules',
    {
      name: 'cost',
      count: counts.schedules,
      trigger: () => ({ type: 'schedule', cron: manual ? '@yearly' : '* * * * * *' }),
    },
  );
  const firing = manual ? fireByHand(creator, ids) : undefined;
  await sleep(counts.settleSeconds * 1000);
  const windows: RunWindow[] = [];
  for (let w = 0; w < counts.windows; w++) {
    const commitsBefore = await commits(stack);
    const busy = await cpuWindow(counts.windowSeconds);
    const commitsAfter = await commits(stack);
    // A run recorded near the window's end ends after it: counted by when it was recorded, the
    // overlap at either end is the same on average.
    const runs = await runsRecorded(stack, ids, busy.from, busy.to);
    const seconds = (busy.to - busy.from) / 1000;
    const perRun = Object.fromEntries(
      (Object.keys(groups) as Group[]).map((name) => [
        name,
        ((busy.msPerSecond[name] - idle.msPerSecond[name]) * seconds) / Math.max(1, runs),
      ]),
    ) as Record<Group, number>;
    const window = {
      runs,
      seconds,
      perRun,
      commitsPerRun: (commitsAfter - commitsBefore) / Math.max(1, runs),
      load: busy.load,
    };
    windows.push(window);
    progress(
      `window ${w + 1}: ${runs} runs in ${seconds.toFixed(1)} s; CPU ms a run ${JSON.stringify(rounded(perRun))}, ` +
        `${window.commitsPerRun.toFixed(1)} commits a run, load ${busy.load} (window ${busy.from}–${busy.to} ms since the epoch)`,
    );
  }
  await firing?.stop();
  await deactivate(creator, ids);
  await sleep(3_000);
  const histories = await fireHistories(stack, ids[0]!);
  report(idle.msPerSecond, windows, histories);
}

const rounded = (values: Record<string, number>) =>
  Object.fromEntries(Object.entries(values).map(([name, value]) => [name, Number(value.toFixed(1))]));

function report(idle: Record<Group, number>, windows: RunWindow[], histories: string[]) {
  const mean = (pick: (window: RunWindow) => number) =>
    windows.reduce((sum, window) => sum + pick(window), 0) / Math.max(1, windows.length);
  const perRun = (name: Group) => windows.map((window) => window.perRun[name].toFixed(1)).join(' / ');
  const lines = [
    `  idle CPU ms/s: worker ${idle.worker.toFixed(1)}, temporal ${idle.temporal.toFixed(1)}, postgres ${idle.postgres.toFixed(1)}`,
    `  CPU ms a run above idle, window by window (${counts.schedules} automations fired every second ${manual ? 'over the API' : 'by their schedules'}, function action):`,
    `    worker   ${perRun('worker')}  (mean ${mean((w) => w.perRun.worker).toFixed(1)})`,
    `    temporal ${perRun('temporal')}  (mean ${mean((w) => w.perRun.temporal).toFixed(1)})`,
    `    postgres ${perRun('postgres')}  (mean ${mean((w) => w.perRun.postgres).toFixed(1)})`,
    `    commits a run ${windows.map((w) => w.commitsPerRun.toFixed(1)).join(' / ')}`,
    `    runs ${windows.map((w) => w.runs).join(' / ')}; load ${windows.map((w) => w.load).join('; ')}`,
    `  one fire's histories:`,
    ...histories,
    `  counts: ${JSON.stringify(counts)}`,
    JSON.stringify({
      workerMsPerRun: Number(mean((w) => w.perRun.worker).toFixed(2)),
      temporalMsPerRun: Number(mean((w) => w.perRun.temporal).toFixed(2)),
      postgresMsPerRun: Number(mean((w) => w.perRun.postgres).toFixed(2)),
    }),
  ];
  printReport('run-cost', lines, `, load now ${load()}`);
}

await runBench('run-cost', {
  counts,
  notes: [`load average at start: ${load()}`],
  start: startAutomationsStack,
  measure,
});

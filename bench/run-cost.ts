/**
 * `npm run bench:run-cost`: what one automation run costs, in CPU milliseconds of the worker, the
 * Temporal server and PostgreSQL, and in workflow tasks and history events, fired by a Schedule and
 * over the API, alternated in one run; and the block follower's workflow tasks per block while it
 * starts runs. On the automations bench's stack (ONE worker as a child process, the API in this
 * process without a worker of its own, the Temporal dev server, embedded PostgreSQL, neo-go), an
 * idle window gives each process's cost of standing by; then rounds of two windows, in turn
 * ABBA: BENCH_RUN_COST_SCHEDULES schedules firing every second, and as many automations fired over
 * the API once a second (each set stopped while the other runs). Each window's CPU above the idle
 * rate, divided by the runs recorded in it, is the cost of a run. Last, BENCH_RUN_COST_WATCHERS
 * blockchain automations match a transfer the bench sends every block: the follower's workflow
 * tasks completed in the window over the blocks it read. Ends with one JSON line
 * (`scheduledRunCpuMs` and `apiRunCpuMs`: worker plus Temporal, CPU ms a run; their ratio;
 * `followerTasksPerBlock`). Runs on the code of any checkout, before issue 50 too, for an
 * alternated comparison. With BENCH_AUTOMATIONS_CPU_PROF set to a directory, the worker writes its
 * CPU profile there (bench/profile-window.ts cuts each printed window out of it). Prints figures;
 * exits 0 either way.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import proto from '@temporalio/proto';
import {
  createAutomations,
  deactivate,
  deployBenchAction,
  randomAddress,
  startTransfers,
  transfersTo,
  type Creator,
} from './automation-runs.ts';
import { startAutomationsStack, type AutomationsBenchStack } from './automations-stack.ts';
import { countFrom, printReport, progress, runBench, runConcurrent } from './measure.ts';
import { loadLine, sampleGroups } from './proc.ts';
import { apiClient } from './scratch-stack.ts';

const counts = {
  schedules: countFrom('BENCH_RUN_COST_SCHEDULES', 4),
  watchers: countFrom('BENCH_RUN_COST_WATCHERS', 2),
  idleSeconds: countFrom('BENCH_RUN_COST_IDLE_SECONDS', 15),
  settleSeconds: countFrom('BENCH_RUN_COST_SETTLE_SECONDS', 8),
  windowSeconds: countFrom('BENCH_RUN_COST_WINDOW_SECONDS', 25),
  rounds: countFrom('BENCH_RUN_COST_ROUNDS', 2),
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

/** Runs of `automationIds` recorded in [from, to). */
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

/** Fires each of `ids` over the API once a second until stopped. */
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

function activate(creator: Creator, ids: string[]) {
  return runConcurrent(ids.length, creator.concurrency, async (i) => {
    const answer = await creator.call('PATCH', `/automations/${ids[i]}`, { status: 'active' });
    if (answer.status !== 200) throw new Error(`activate answered ${answer.status}`);
  });
}

type Kind = 'schedule' | 'api';

interface RunWindow {
  kind: Kind;
  runs: number;
  seconds: number;
  perRun: Record<Group, number>;
  commitsPerRun: number;
  load: string;
}

const eventName = (type: number | null | undefined) =>
  (proto.temporal.api.enums.v1.EventType[type ?? 0] ?? 'unknown').replace(/^EVENT_TYPE_/, '').toLowerCase();

/**
 * One run's histories, fired by `kind`: the run's workflow (its id the run's) and, for a fire of a
 * schedule written before issue 50, its `scheduledFire` (`<automation id>-<scheduled time>`, not
 * found on today's code): events by type, and the workflow tasks of all together.
 */
async function runHistories(stack: AutomationsBenchStack, automationId: string, kind: Kind) {
  const [run] = await stack.orm.em
    .fork()
    .execute<{ id: string; scheduled_at: string | null }[]>(
      `select "id", "trigger"->>'scheduledAt' as "scheduled_at" from "automation_runs" where "automation_id" = ? and "status" <> 'running' order by "started_at" desc limit 1`,
      [automationId],
    );
  if (!run) return { lines: [`  no ended run of ${automationId} to show`], tasks: 0, events: 0 };
  const workflowIds = [run.id];
  // A schedule names each workflow it starts `<action's workflow id>-<scheduled time, to the second>`.
  if (run.scheduled_at) workflowIds.unshift(`${automationId}-${run.scheduled_at.replace(/\.\d{3}Z$/, 'Z')}`);
  const lines: string[] = [];
  let tasks = 0;
  let events = 0;
  for (const workflowId of workflowIds) {
    const history = await stack.temporal.client.workflow
      .getHandle(workflowId)
      .fetchHistory()
      .catch(() => undefined);
    if (!history) continue;
    const byType = new Map<string, number>();
    for (const event of history.events ?? [])
      byType.set(eventName(event.eventType), (byType.get(eventName(event.eventType)) ?? 0) + 1);
    const type = history.events?.[0]?.workflowExecutionStartedEventAttributes?.workflowType?.name ?? '?';
    tasks += byType.get('workflow_task_completed') ?? 0;
    events += history.events?.length ?? 0;
    const types = [...byType].map(([name, count]) => `${name} ${count}`).join(', ');
    lines.push(`  ${kind}: ${type} (${workflowId}): ${history.events?.length ?? 0} events: ${types}`);
  }
  return { lines, tasks, events };
}

/** The running follower's workflow tasks completed in [from, to). */
async function followerTasks(stack: AutomationsBenchStack, from: number, to: number) {
  let tasks = 0;
  for await (const workflow of stack.temporal.client.workflow.list({
    query: `WorkflowType = 'blockFollower' AND ExecutionStatus = 'Running'`,
  })) {
    const history = await stack.temporal.client.workflow.getHandle(workflow.workflowId, workflow.runId).fetchHistory();
    for (const event of history.events ?? []) {
      const at = Number(event.eventTime?.seconds ?? 0) * 1000 + Math.floor((event.eventTime?.nanos ?? 0) / 1e6);
      if (event.workflowTaskCompletedEventAttributes && at >= from && at < to) tasks += 1;
    }
  }
  return tasks;
}

async function runWindow(stack: AutomationsBenchStack, kind: Kind, ids: string[], idle: Record<Group, number>) {
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
      ((busy.msPerSecond[name] - idle[name]) * seconds) / Math.max(1, runs),
    ]),
  ) as Record<Group, number>;
  const window = {
    kind,
    runs,
    seconds,
    perRun,
    commitsPerRun: (commitsAfter - commitsBefore) / Math.max(1, runs),
    load: busy.load,
  };
  progress(
    `${kind} window: ${runs} runs in ${seconds.toFixed(1)} s; CPU ms a run ${JSON.stringify(rounded(perRun))}, ` +
      `${window.commitsPerRun.toFixed(1)} commits a run, load ${busy.load} (window ${busy.from}–${busy.to} ms since the epoch)`,
  );
  return window;
}

/** The follower's workflow tasks per block while `counts.watchers` automations fire every block. */
async function followerWindow(stack: AutomationsBenchStack, creator: Creator) {
  const recipient = randomAddress();
  const transfers = startTransfers(stack, recipient);
  const { ids } = await createAutomations(creator, 'watchers of every block', {
    name: 'cost-watch',
    count: counts.watchers,
    trigger: transfersTo(recipient),
  });
  await sleep(counts.settleSeconds * 1000);
  const heightBefore = await stack.neo.getBlockCount();
  const from = Date.now();
  const loadBefore = load();
  await sleep(counts.windowSeconds * 1000);
  const to = Date.now();
  const blocks = (await stack.neo.getBlockCount()) - heightBefore;
  const runs = await runsRecorded(stack, ids, from, to);
  const tasks = await followerTasks(stack, from, to);
  const sent = await transfers.stop();
  await deactivate(creator, ids);
  const line =
    `follower: ${tasks} workflow tasks over ${blocks} blocks, ${runs} runs recorded ` +
    `(${sent.sent} transfers sent, ${sent.failed} failed), load ${loadBefore} → ${load()}`;
  progress(line);
  return { tasksPerBlock: tasks / Math.max(1, blocks), line: `  ${line}` };
}

async function measure(stack: AutomationsBenchStack) {
  const call = apiClient(stack);
  const creator: Creator = { call, action: await deployBenchAction(call), concurrency: 4 };
  await sleep(5_000);
  const idle = await cpuWindow(counts.idleSeconds);
  progress(`idle: ${JSON.stringify(rounded(idle.msPerSecond))} CPU ms/s, load ${idle.load}`);
  const scheduled = await createAutomations(creator, 'every-second schedules', {
    name: 'cost',
    count: counts.schedules,
    trigger: () => ({ type: 'schedule', cron: '* * * * * *' }),
  });
  await deactivate(creator, scheduled.ids);
  const byHand = await createAutomations(creator, 'yearly schedules, fired over the API', {
    name: 'cost-api',
    count: counts.schedules,
    trigger: () => ({ type: 'schedule', cron: '@yearly' }),
  });
  const windows: RunWindow[] = [];
  // ABBA: a drift of the machine's load over the run weighs on both kinds alike.
  const order: Kind[] = Array.from({ length: counts.rounds }, (_, round) =>
    round % 2 === 0 ? (['schedule', 'api'] as const) : (['api', 'schedule'] as const),
  ).flat();
  for (const kind of order) {
    if (kind === 'schedule') {
      await activate(creator, scheduled.ids);
      await sleep(counts.settleSeconds * 1000);
      windows.push(await runWindow(stack, kind, scheduled.ids, idle.msPerSecond));
      await deactivate(creator, scheduled.ids);
    } else {
      const firing = fireByHand(creator, byHand.ids);
      await sleep(counts.settleSeconds * 1000);
      windows.push(await runWindow(stack, kind, byHand.ids, idle.msPerSecond));
      await firing.stop();
    }
    await sleep(3_000);
  }
  const follower = await followerWindow(stack, creator);
  await sleep(3_000);
  const histories = [
    await runHistories(stack, scheduled.ids[0]!, 'schedule'),
    await runHistories(stack, byHand.ids[0]!, 'api'),
  ];
  report(idle.msPerSecond, windows, histories, follower);
}

const rounded = (values: Record<string, number>) =>
  Object.fromEntries(Object.entries(values).map(([name, value]) => [name, Number(value.toFixed(1))]));

function report(
  idle: Record<Group, number>,
  windows: RunWindow[],
  histories: { lines: string[]; tasks: number; events: number }[],
  follower: { tasksPerBlock: number; line: string },
) {
  const of = (kind: Kind) => windows.filter((window) => window.kind === kind);
  const mean = (kind: Kind, pick: (window: RunWindow) => number) =>
    of(kind).reduce((sum, window) => sum + pick(window), 0) / Math.max(1, of(kind).length);
  const perRun = (kind: Kind, name: Group) =>
    of(kind)
      .map((window) => window.perRun[name].toFixed(1))
      .join(' / ');
  const lines = [
    `  idle CPU ms/s: worker ${idle.worker.toFixed(1)}, temporal ${idle.temporal.toFixed(1)}, postgres ${idle.postgres.toFixed(1)}`,
  ];
  for (const kind of ['schedule', 'api'] as const) {
    lines.push(
      `  CPU ms a run above idle, ${kind === 'schedule' ? 'fired by their schedules' : 'fired over the API'} (${counts.schedules} automations every second, function action), window by window:`,
      `    worker   ${perRun(kind, 'worker')}  (mean ${mean(kind, (w) => w.perRun.worker).toFixed(1)})`,
      `    temporal ${perRun(kind, 'temporal')}  (mean ${mean(kind, (w) => w.perRun.temporal).toFixed(1)})`,
      `    postgres ${perRun(kind, 'postgres')}  (mean ${mean(kind, (w) => w.perRun.postgres).toFixed(1)})`,
      `    commits a run ${of(kind)
        .map((w) => w.commitsPerRun.toFixed(1))
        .join(' / ')}`,
      `    runs ${of(kind)
        .map((w) => w.runs)
        .join(' / ')}; load ${of(kind)
        .map((w) => w.load)
        .join('; ')}`,
    );
  }
  const cpu = (kind: Kind) => mean(kind, (w) => w.perRun.worker + w.perRun.temporal);
  lines.push(`  one run's histories:`, ...histories.flatMap((history) => history.lines), follower.line);
  lines.push(`  counts: ${JSON.stringify(counts)}`);
  lines.push(
    JSON.stringify({
      scheduledRunCpuMs: Number(cpu('schedule').toFixed(2)),
      apiRunCpuMs: Number(cpu('api').toFixed(2)),
      scheduledToApi: Number((cpu('schedule') / Math.max(0.01, cpu('api'))).toFixed(2)),
      followerTasksPerBlock: Number(follower.tasksPerBlock.toFixed(2)),
      scheduledRunTasks: histories[0]!.tasks,
      scheduledRunEvents: histories[0]!.events,
      apiRunTasks: histories[1]!.tasks,
      apiRunEvents: histories[1]!.events,
      workerMsPerRun: {
        schedule: Number(mean('schedule', (w) => w.perRun.worker).toFixed(2)),
        api: Number(mean('api', (w) => w.perRun.worker).toFixed(2)),
      },
      temporalMsPerRun: {
        schedule: Number(mean('schedule', (w) => w.perRun.temporal).toFixed(2)),
        api: Number(mean('api', (w) => w.perRun.temporal).toFixed(2)),
      },
      postgresMsPerRun: {
        schedule: Number(mean('schedule', (w) => w.perRun.postgres).toFixed(2)),
        api: Number(mean('api', (w) => w.perRun.postgres).toFixed(2)),
      },
      load: load(),
    }),
  );
  printReport('run-cost', lines, `, load now ${load()}`);
}

await runBench('run-cost', {
  counts,
  notes: [`load average at start: ${load()}`],
  start: startAutomationsStack,
  measure,
});

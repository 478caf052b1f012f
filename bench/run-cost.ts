/**
 * `npm run bench:run-cost`: what one automation run costs, in CPU milliseconds of the worker, the
 * Temporal server and PostgreSQL, and in workflow tasks and history events, fired by a Schedule and
 * over the API, alternated in one run; and the block follower's workflow tasks per block while it
 * starts runs. On the automations bench's stack (ONE worker as a child process, the API in this
 * process without a worker of its own, the Temporal dev server, embedded PostgreSQL, neo-go), each
 * path runs once unmeasured, then an idle window gives each process's cost of standing by; then
 * rounds of four windows, in turn ABBA: BENCH_RUN_COST_SCHEDULES schedules firing every second, as
 * many automations fired over the API once a second, and the floor of each
 * (bench/run-cost-floor.ts: a bare Schedule, and a client's start, of a workflow that does nothing,
 * on a worker of its own), each set stopped while another runs. Each window's CPU above the idle
 * rate, divided by the runs recorded (the floor's: started) in it, is the cost of a run; the
 * scheduled/API ratio is printed round by round for both, the floor's spread being the host's.
 * Last, BENCH_RUN_COST_WATCHERS blockchain automations match a transfer the bench sends every
 * block: the follower's workflow tasks completed in the window over the blocks it read. Ends with
 * one JSON line (`scheduledRunCpuMs` and `apiRunCpuMs`: worker plus Temporal, CPU ms a run; their
 * ratio, and the floor's; `followerTasksPerBlock`). Runs on the code of any checkout, before issue
 * 50 too, for an alternated comparison. With BENCH_AUTOMATIONS_CPU_PROF set to a directory, the
 * worker writes its CPU profile there (bench/profile-window.ts cuts each printed window out of it).
 * Prints figures; exits 0 either way.
 */
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
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
import { countFrom, progress, runBench, runConcurrent } from './measure.ts';
import { loadLine, sampleGroups } from './proc.ts';
import { apiClient } from './scratch-stack.ts';
import { everySecond, floorWorkerPattern, startRunFloor, type RunFloor } from './run-cost-floor.ts';
import {
  eventName,
  report,
  schedulerWork,
  type Group,
  type Histories,
  type Kind,
  type RunWindow,
} from './run-cost-report.ts';

const counts = {
  schedules: countFrom('BENCH_RUN_COST_SCHEDULES', 4),
  watchers: countFrom('BENCH_RUN_COST_WATCHERS', 2),
  idleSeconds: countFrom('BENCH_RUN_COST_IDLE_SECONDS', 15),
  settleSeconds: countFrom('BENCH_RUN_COST_SETTLE_SECONDS', 8),
  windowSeconds: countFrom('BENCH_RUN_COST_WINDOW_SECONDS', 25),
  rounds: countFrom('BENCH_RUN_COST_ROUNDS', 2),
};

/** The processes whose CPU a run costs, by command line; the bench itself (the API) is left out. */
const groups: Record<Group, RegExp> = {
  worker: /neoflow\.js worker|worker\/main\.ts/,
  temporal: /temporal server start-dev/,
  postgres: /(^|\/)postgres(:| |$)/,
  floor: floorWorkerPattern,
};

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
const fireByHand = (creator: Creator, ids: string[]) =>
  everySecond(() => Promise.all(ids.map((id) => creator.call('POST', `/automations/${id}/trigger`))));

function activate(creator: Creator, ids: string[]) {
  return runConcurrent(ids.length, creator.concurrency, async (i) => {
    const answer = await creator.call('PATCH', `/automations/${ids[i]}`, { status: 'active' });
    if (answer.status !== 200) throw new Error(`activate answered ${answer.status}`);
  });
}

/**
 * One run's histories, fired by `kind`: the run's workflow (its id the run's) and, for a fire of a
 * schedule written before issue 50, its `scheduledFire` (`<automation id>-<scheduled time>`, not
 * found on today's code): events by type, and the workflow tasks of all together.
 */
async function runHistories(stack: AutomationsBenchStack, automationId: string, kind: Kind): Promise<Histories> {
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

/**
 * One window of runs of `kind`, counted by `runsIn` (a run recorded, or a floor run started, near
 * the window's end ends after it: counted by when it began, the overlap at either end is the same
 * on average).
 */
async function runWindow(
  stack: AutomationsBenchStack,
  kind: Kind,
  round: number,
  runsIn: (from: number, to: number) => Promise<number>,
  idle: Record<Group, number>,
): Promise<RunWindow> {
  const commitsBefore = await commits(stack);
  const busy = await cpuWindow(counts.windowSeconds);
  const commitsAfter = await commits(stack);
  const runs = await runsIn(busy.from, busy.to);
  const seconds = (busy.to - busy.from) / 1000;
  const perRun = Object.fromEntries(
    (Object.keys(groups) as Group[]).map((name) => [
      name,
      ((busy.msPerSecond[name] - idle[name]) * seconds) / Math.max(1, runs),
    ]),
  ) as Record<Group, number>;
  const window = {
    kind,
    round,
    runs,
    seconds,
    from: busy.from,
    to: busy.to,
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
  const floor = await startRunFloor(stack.temporalAddress, counts.schedules, floorLog);
  progress(`floor worker polling, log at ${floorLog}`);
  try {
    await measureWith(stack, floor);
  } finally {
    await floor.stop();
  }
}

const floorLog = join(tmpdir(), 'neoflow-bench-run-cost-floor-worker.log');

async function measureWith(stack: AutomationsBenchStack, floor: RunFloor) {
  const call = apiClient(stack);
  const creator: Creator = { call, action: await deployBenchAction(call), concurrency: 4 };
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
  const firing = async (kind: Kind) => {
    if (kind === 'schedule') {
      await activate(creator, scheduled.ids);
      return { stop: () => deactivate(creator, scheduled.ids) };
    }
    return kind === 'api' ? fireByHand(creator, byHand.ids) : floor.fire(kind);
  };
  const runsIn = (kind: Kind) => (from: number, to: number) =>
    kind === 'schedule' || kind === 'api'
      ? runsRecorded(stack, (kind === 'schedule' ? scheduled : byHand).ids, from, to)
      : floor.runsStarted(from, to);
  const windows: RunWindow[] = [];
  // ABBA: a drift of the machine's load over the run weighs on every kind alike.
  const kinds: Kind[] = ['schedule', 'api', 'floor-api', 'floor-schedule'];
  // Each path run once unmeasured first: the first window of a path also paid for its code's
  // compilation in the workers (its workflow thread's the most), so the kind measured first did.
  for (const kind of kinds) {
    const fired = await firing(kind);
    await sleep(counts.settleSeconds * 1000);
    await fired.stop();
  }
  progress('each path warmed up');
  // Measured once every path has run: a process just started (the floor's worker) settles first.
  await sleep(5_000);
  const idle = await cpuWindow(counts.idleSeconds);
  progress(`idle: ${JSON.stringify(rounded(idle.msPerSecond))} CPU ms/s, load ${idle.load}`);
  for (let round = 0; round < counts.rounds; round++) {
    for (const kind of round % 2 === 0 ? kinds : kinds.toReversed()) {
      const fired = await firing(kind);
      await sleep(counts.settleSeconds * 1000);
      windows.push(await runWindow(stack, kind, round, runsIn(kind), idle.msPerSecond));
      await fired.stop();
      await sleep(3_000);
    }
  }
  const follower = await followerWindow(stack, creator);
  await sleep(3_000);
  const histories = [
    await runHistories(stack, scheduled.ids[0]!, 'schedule'),
    await runHistories(stack, byHand.ids[0]!, 'api'),
  ];
  const schedulers = [
    await schedulerWork(
      stack.temporal.client,
      scheduled.ids[0]!,
      windows.filter((w) => w.kind === 'schedule'),
    ),
    await schedulerWork(
      stack.temporal.client,
      'floor-0',
      windows.filter((w) => w.kind === 'floor-schedule'),
    ),
  ];
  report(counts, idle.msPerSecond, windows, { histories, schedulers, follower });
}

const rounded = (values: Record<string, number>) =>
  Object.fromEntries(Object.entries(values).map(([name, value]) => [name, Number(value.toFixed(1))]));

await runBench('run-cost', {
  counts,
  notes: [`load average at start: ${load()}`],
  start: startAutomationsStack,
  measure,
});

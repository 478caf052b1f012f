/**
 * What `bench:run-cost` prints: each kind's CPU a run window by window, the scheduled/API ratio of
 * Neoflow's runs and of the floor's round by round (its spread is the floor's own), one run's
 * histories, each scheduler's work a fire, the follower, and one JSON line.
 */
import type { Client } from '@temporalio/client';
import proto from '@temporalio/proto';
import { printReport } from './measure.ts';
import { loadLine } from './proc.ts';
import type { FloorKind } from './run-cost-floor.ts';

export type Group = 'worker' | 'temporal' | 'postgres' | 'floor';
export type Kind = 'schedule' | 'api' | FloorKind;

/** The worker whose CPU a kind's runs cost: the floor's own, or Neoflow's. */
export const workerOf = (kind: Kind): Group => (kind.startsWith('floor') ? 'floor' : 'worker');

export interface RunWindow {
  kind: Kind;
  round: number;
  runs: number;
  seconds: number;
  from: number;
  to: number;
  perRun: Record<Group, number>;
  commitsPerRun: number;
  load: string;
}

export interface Histories {
  lines: string[];
  tasks: number;
  events: number;
}

export const eventName = (type: number | null | undefined) =>
  (proto.temporal.api.enums.v1.EventType[type ?? 0] ?? 'unknown').replace(/^EVENT_TYPE_/, '').toLowerCase();

/**
 * The work of schedule `scheduleId`'s scheduler workflow (Temporal's own, one per schedule) in
 * `windows`: its history events by type and its workflow tasks, per workflow it started there
 * (one `marker_recorded` each: the local activity that starts it).
 */
export async function schedulerWork(client: Client, scheduleId: string, windows: RunWindow[]) {
  const history = await client.workflow
    .getHandle(`temporal-sys-scheduler:${scheduleId}`)
    .fetchHistory()
    .catch(() => undefined);
  const byType = new Map<string, number>();
  for (const event of history?.events ?? []) {
    const at = Number(event.eventTime?.seconds ?? 0) * 1000 + Math.floor((event.eventTime?.nanos ?? 0) / 1e6);
    if (!windows.some((window) => at >= window.from && at < window.to)) continue;
    byType.set(eventName(event.eventType), (byType.get(eventName(event.eventType)) ?? 0) + 1);
  }
  const fires = Math.max(1, byType.get('marker_recorded') ?? 0);
  const events = [...byType.values()].reduce((sum, count) => sum + count, 0);
  const types = [...byType].map(([name, count]) => `${name} ${(count / fires).toFixed(2)}`).join(', ');
  return `  ${scheduleId}'s scheduler, a fire: ${(events / fires).toFixed(2)} events (${types}) over ${fires} fires`;
}

const fixed = (value: number, digits = 2) => Number(value.toFixed(digits));

export function report(
  counts: Record<string, number>,
  idle: Record<Group, number>,
  windows: RunWindow[],
  more: { histories: Histories[]; schedulers: string[]; follower: { tasksPerBlock: number; line: string } },
) {
  const of = (kind: Kind) => windows.filter((window) => window.kind === kind);
  const mean = (kind: Kind, pick: (window: RunWindow) => number) =>
    of(kind).reduce((sum, window) => sum + pick(window), 0) / Math.max(1, of(kind).length);
  const byWindow = (kind: Kind, name: Group) =>
    `${of(kind)
      .map((window) => window.perRun[name].toFixed(1))
      .join(' / ')}  (mean ${mean(kind, (w) => w.perRun[name]).toFixed(1)})`;
  const cpuOf = (window: RunWindow) => window.perRun[workerOf(window.kind)] + window.perRun.temporal;
  const cpu = (kind: Kind) => mean(kind, cpuOf);
  const idleLine = (['worker', 'floor', 'temporal', 'postgres'] as const).map((n) => `${n} ${idle[n].toFixed(1)}`);
  const lines = [`  idle CPU ms/s: ${idleLine.join(', ')}`];
  const titles: Record<Kind, string> = {
    schedule: `fired by their schedules (${counts.schedules} automations every second, function action)`,
    api: `fired over the API (${counts.schedules} automations every second, function action)`,
    'floor-schedule': `floor, fired by ${counts.schedules} bare schedules every second (a no-op local activity)`,
    'floor-api': `floor, ${counts.schedules} client starts a second of the same workflow`,
  };
  for (const kind of ['schedule', 'api', 'floor-schedule', 'floor-api'] as const) {
    const worker = workerOf(kind);
    lines.push(
      `  CPU ms a run above idle, ${titles[kind]}, window by window:`,
      `    ${worker.padEnd(8)} ${byWindow(kind, worker)}`,
      `    temporal ${byWindow(kind, 'temporal')}`,
      `    postgres ${byWindow(kind, 'postgres')}`,
      `    commits a run ${of(kind)
        .map((w) => w.commitsPerRun.toFixed(1))
        .join(' / ')}; runs ${of(kind)
        .map((w) => w.runs)
        .join(' / ')}; load ${of(kind)
        .map((w) => w.load)
        .join('; ')}`,
    );
  }
  // Round by round: each ratio of windows next to each other (ABBA), so the spread is the host's.
  const ratios = (scheduled: Kind, api: Kind) =>
    Array.from({ length: counts.rounds ?? 0 }, (_, round) => {
      const window = (kind: Kind) => windows.find((w) => w.kind === kind && w.round === round);
      const [s, a] = [window(scheduled), window(api)];
      return s && a ? fixed(cpuOf(s) / Math.max(0.01, cpuOf(a))) : Number.NaN;
    });
  const ours = ratios('schedule', 'api');
  const floor = ratios('floor-schedule', 'floor-api');
  const spread = (values: number[]) => `${Math.min(...values).toFixed(2)}–${Math.max(...values).toFixed(2)}`;
  lines.push(
    `  scheduled/API ratio round by round: Neoflow ${ours.join(', ')} (${spread(ours)}); floor ${floor.join(', ')} (${spread(floor)})`,
    `  one run's histories:`,
    ...more.histories.flatMap((history) => history.lines),
    ...more.schedulers,
    more.follower.line,
    `  counts: ${JSON.stringify(counts)}`,
  );
  const [scheduledHistory, apiHistory] = more.histories;
  const pick = (name: Group) => ({
    schedule: fixed(mean('schedule', (w) => w.perRun[name])),
    api: fixed(mean('api', (w) => w.perRun[name])),
  });
  lines.push(
    JSON.stringify({
      scheduledRunCpuMs: fixed(cpu('schedule')),
      apiRunCpuMs: fixed(cpu('api')),
      scheduledToApi: fixed(cpu('schedule') / Math.max(0.01, cpu('api'))),
      scheduledToApiByRound: ours,
      floorScheduledRunCpuMs: fixed(cpu('floor-schedule')),
      floorApiRunCpuMs: fixed(cpu('floor-api')),
      floorScheduledToApi: fixed(cpu('floor-schedule') / Math.max(0.01, cpu('floor-api'))),
      floorScheduledToApiByRound: floor,
      followerTasksPerBlock: fixed(more.follower.tasksPerBlock),
      scheduledRunTasks: scheduledHistory?.tasks,
      scheduledRunEvents: scheduledHistory?.events,
      apiRunTasks: apiHistory?.tasks,
      apiRunEvents: apiHistory?.events,
      workerMsPerRun: pick('worker'),
      temporalMsPerRun: pick('temporal'),
      postgresMsPerRun: pick('postgres'),
      load: loadLine(),
    }),
  );
  printReport('run-cost', lines, `, load now ${loadLine()}`);
}

/**
 * bench:scale's figures: the processes it counts, what a step measured, and the report of a run,
 * which, when the run alternated this code with a base commit's (BENCH_SCALE_BASE), ends with each
 * N's ratio of this code's CPU to the base's, round by round.
 */
import type { Activity } from './pg-activity.ts';
import { describeActivity } from './pg-activity.ts';
import { loadLine, type GroupSample } from './proc.ts';
import type { Kind } from './scale-mix.ts';
import { printReport } from './measure.ts';

/** The processes of `neoflow up` the issue counts, the API, neo-go and `neoflow up` itself, by command line. */
export const groups = {
  worker: /neoflow\.js worker/,
  temporal: /temporal server start-dev/,
  postgres: /(^|\/)postgres(:| |$)/,
  api: /neoflow\.js api/,
  neoGo: /neo-go node/,
  up: /neoflow\.js up/,
};
export type Group = keyof typeof groups;

/**
 * What creating a step's automations took: creates per second, and CPU ms per create by process
 * above what the process spent before (the last steady window), by kind and over all.
 */
export type Creates = Record<Kind | 'all', { perSecond: number; cpuMs: Record<Group, number> }>;

export interface Step {
  n: number;
  creates: Creates;
  groups: Record<Group, GroupSample>;
  machineBusyPercent: number;
  /** PostgreSQL's commits and rows read in the window. */
  pg: Activity;
  seconds: number;
  rpcPerMinute: number;
  priceReadsPerMinute: number;
  fireDelayP99Ms: number;
  fires: number;
  lagP99Blocks: number;
  lagEvents: number;
  loadBefore: string;
  loadAfter: string;
}

/** One stack's measurements: the code it ran, the bare window (one function, no automation), the steps. */
export interface Block {
  code: string;
  round: number;
  bare: { groups: Record<Group, GroupSample>; pg: Activity; rpcPerMinute: number; load: string };
  steps: Step[];
}

export const mapGroups = (value: (name: Group) => number) =>
  Object.fromEntries(Object.keys(groups).map((name) => [name, value(name as Group)])) as Record<Group, number>;

export const describeCpu = (cpuMs: Record<Group, number>) =>
  Object.entries(cpuMs)
    .map(([name, value]) => `${name} ${value.toFixed(1)}`)
    .join(', ');

const pct = (value: number) => `${value.toFixed(1)}%`;
const mib = (value: number) => `${value.toFixed(0)}`;
/** The sum the issues count: worker, Temporal and PostgreSQL. */
export const core = (sampled: Record<Group, GroupSample>) =>
  sampled.worker.cpuPercent + sampled.temporal.cpuPercent + sampled.postgres.cpuPercent;

export function stepLine(step: Step) {
  const { worker, temporal, postgres, api, neoGo, up } = step.groups;
  return (
    `creates ${step.creates.all.perSecond.toFixed(1)}/s (watchers ${step.creates.watchers.perSecond.toFixed(1)}, prices ${step.creates.prices.perSecond.toFixed(1)}, schedules ${step.creates.schedules.perSecond.toFixed(1)}; cpu ms per create ${describeCpu(step.creates.all.cpuMs)}); ` +
    `cpu worker ${pct(worker.cpuPercent)}, temporal ${pct(temporal.cpuPercent)}, postgres ${pct(postgres.cpuPercent)} (api ${pct(api.cpuPercent)}, neo-go ${pct(neoGo.cpuPercent)}, neoflow up ${pct(up.cpuPercent)}); ` +
    `rss worker ${mib(worker.rssMiB)}, temporal ${mib(temporal.rssMiB)}, postgres ${mib(postgres.rssMiB)} MiB; ` +
    `rpc ${step.rpcPerMinute.toFixed(0)}/min, price reads ${step.priceReadsPerMinute.toFixed(1)}/min; ` +
    `fire p99 ${step.fireDelayP99Ms.toFixed(0)} ms (${step.fires}), lag p99 ${step.lagP99Blocks} blocks (${step.lagEvents}); ` +
    `${describeActivity(step.pg)}; ` +
    `machine ${step.machineBusyPercent.toFixed(0)}% busy, load ${step.loadBefore} → ${step.loadAfter}`
  );
}

export function bareLine(bare: Block['bare']) {
  const ms = mapGroups((name) => bare.groups[name].cpuPercent * 10);
  return `bare (one function, no automation): CPU ms/s ${describeCpu(ms)}; rpc ${bare.rpcPerMinute.toFixed(0)}/min; ${describeActivity(bare.pg)}; load ${bare.load}`;
}

const ratio = (after: number, before: number) => after / before;
const verdict = (ok: boolean) => (ok ? 'PASS' : 'MISS');
const round1 = (value: number) => Math.round(value * 10) / 10;
const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

interface Settings {
  counts: Record<string, unknown> & { steadySeconds: number; settleSeconds: number; fast: number };
  base: string | undefined;
  targets: { cpuPercent: number; fireDelayP99Ms: number; lagP99Blocks: number; baseRatio: number };
}

const header = [
  'code',
  'N',
  'worker',
  'temporal',
  'postgres',
  'sum',
  'api',
  'neo-go',
  'up',
  'RSS w/t/pg MiB',
  'rpc/min',
  'fire p99',
  'lag p99',
  'load 1-min',
];

function rowsOf(block: Block) {
  const cpu = (sampled: Record<Group, GroupSample>) => [
    pct(sampled.worker.cpuPercent),
    pct(sampled.temporal.cpuPercent),
    pct(sampled.postgres.cpuPercent),
    pct(core(sampled)),
    pct(sampled.api.cpuPercent),
    pct(sampled.neoGo.cpuPercent),
    pct(sampled.up.cpuPercent),
    `${mib(sampled.worker.rssMiB)}/${mib(sampled.temporal.rssMiB)}/${mib(sampled.postgres.rssMiB)}`,
  ];
  const code = `${block.code} r${block.round}`;
  return [
    [
      code,
      'bare',
      ...cpu(block.bare.groups),
      block.bare.rpcPerMinute.toFixed(0),
      '',
      '',
      block.bare.load.split(' ')[0]!,
    ],
    ...block.steps.map((step) => [
      code,
      String(step.n),
      ...cpu(step.groups),
      step.rpcPerMinute.toFixed(0),
      `${step.fireDelayP99Ms.toFixed(0)} ms`,
      `${step.lagP99Blocks} blk`,
      `${step.loadBefore.split(' ')[0]} → ${step.loadAfter.split(' ')[0]}`,
    ]),
  ];
}

/** Each round's ratio of this code's sum to the base's, at the bare window and at each N. */
function ratiosOf(blocks: Block[], base: string) {
  const rounds = [...new Set(blocks.map((block) => block.round))];
  const pairs = rounds.flatMap((round) => {
    const ours = blocks.find((block) => block.round === round && block.code === 'this');
    const theirs = blocks.find((block) => block.round === round && block.code === base);
    return ours && theirs ? [{ round, ours, theirs }] : [];
  });
  const ns = ['bare', ...(pairs[0]?.ours.steps.map((step) => step.n) ?? [])];
  return ns.map((n) => {
    const sampled = (block: Block) =>
      n === 'bare' ? block.bare.groups : block.steps.find((step) => step.n === n)?.groups;
    const each = pairs.flatMap(({ ours, theirs }) => {
      const [a, b] = [sampled(ours), sampled(theirs)];
      return a && b
        ? [{ sum: ratio(core(a), core(b)), withApi: ratio(core(a) + a.api.cpuPercent, core(b) + b.api.cpuPercent) }]
        : [];
    });
    return { n, sums: each.map((pair) => pair.sum), withApi: each.map((pair) => pair.withApi) };
  });
}

export function report(blocks: Block[], { counts, base, targets }: Settings) {
  const rows = blocks.flatMap(rowsOf);
  const widths = header.map((title, i) => Math.max(title.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]) => `  | ${cells.map((cell, i) => cell.padEnd(widths[i]!)).join(' | ')} |`;
  const lines = [
    `  CPU in % of one core over ${counts.steadySeconds} s steady windows after ${counts.settleSeconds} s settling; RSS at the window's end (PostgreSQL: summed over its processes); ` +
      `sum = worker + temporal + postgres; 'bare': one function deployed, no automation; each N adds ${counts.fast} schedules every 10 s and watchers of one transfer a block`,
    line(header),
    line(widths.map((width) => '-'.repeat(width))),
    ...rows.map(line),
  ];
  const ours = blocks.filter((block) => block.code === 'this');
  const last = ours.at(-1)?.steps.at(-1);
  const summary: Record<string, unknown> = {};
  if (base !== undefined) {
    for (const { n, sums, withApi } of ratiosOf(blocks, base)) {
      const list = (values: number[]) => values.map((value) => value.toFixed(2)).join(', ');
      lines.push(
        `  this / ${base} at N=${n}, round by round: sum ${list(sums)} (median ${median(sums).toFixed(2)}); with the API ${list(withApi)}` +
          (n === last?.n ? `; target ≤ ${targets.baseRatio} ${verdict(median(sums) <= targets.baseRatio)}` : ''),
      );
      summary[`sumRatio_${n}`] = sums.map((value) => Number(value.toFixed(3)));
    }
  }
  if (last) {
    lines.push(
      `  this code at N=${last.n}, each round: fire p99 ${ours.map((block) => block.steps.at(-1)!.fireDelayP99Ms.toFixed(0)).join(', ')} ms ≤ ${targets.fireDelayP99Ms} ` +
        `${verdict(ours.every((block) => block.steps.at(-1)!.fireDelayP99Ms <= targets.fireDelayP99Ms))}; ` +
        `lag p99 ${ours.map((block) => block.steps.at(-1)!.lagP99Blocks).join(', ')} ≤ ${targets.lagP99Blocks} ` +
        `${verdict(ours.every((block) => block.steps.at(-1)!.lagP99Blocks <= targets.lagP99Blocks))}; ` +
        `cpu sum ${ours.map((block) => pct(core(block.steps.at(-1)!.groups))).join(', ')} ≤ ${targets.cpuPercent}%`,
    );
  }
  lines.push(`  counts: ${JSON.stringify(counts)}`);
  printReport('scale', lines, `, load now ${loadLine()}`);
  for (const block of blocks) {
    process.stdout.write(`${JSON.stringify(bareJson(block))}\n`);
    for (const step of block.steps) process.stdout.write(`${JSON.stringify(jsonOf(block, step))}\n`);
  }
  if (base !== undefined) process.stdout.write(`${JSON.stringify({ base, ...summary })}\n`);
}

const cpuJson = (sampled: Record<Group, GroupSample>) => ({
  workerCpu: round1(sampled.worker.cpuPercent),
  temporalCpu: round1(sampled.temporal.cpuPercent),
  postgresCpu: round1(sampled.postgres.cpuPercent),
  apiCpu: round1(sampled.api.cpuPercent),
  neoGoCpu: round1(sampled.neoGo.cpuPercent),
  upCpu: round1(sampled.up.cpuPercent),
});

const bareJson = (block: Block) => ({
  code: block.code,
  round: block.round,
  n: 'bare',
  ...cpuJson(block.bare.groups),
  rpcPerMinute: Math.round(block.bare.rpcPerMinute),
  pgCommitsPerMinute: Math.round(block.bare.pg.commitsPerMinute),
  load: block.bare.load,
});

const jsonOf = (block: Block, step: Step) => ({
  code: block.code,
  round: block.round,
  n: step.n,
  ...cpuJson(step.groups),
  fireDelayP99Ms: Math.round(step.fireDelayP99Ms),
  lagP99Blocks: step.lagP99Blocks,
  workerRssMiB: Math.round(step.groups.worker.rssMiB),
  temporalRssMiB: Math.round(step.groups.temporal.rssMiB),
  postgresRssMiB: Math.round(step.groups.postgres.rssMiB),
  rpcPerMinute: Math.round(step.rpcPerMinute),
  httpReadsPerMinute: round1(step.priceReadsPerMinute),
  pgCommitsPerMinute: Math.round(step.pg.commitsPerMinute),
  pgRowsReadPerMinute: Math.round(step.pg.rowsPerMinute),
  createsPerSecond: round1(step.creates.all.perSecond),
  load: step.loadAfter,
});

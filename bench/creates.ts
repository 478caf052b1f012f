/**
 * `npm run bench:creates`: how fast the README stack (the one bench:scale brings up) takes
 * automation creates over the API, per kind of issue 34's mix (watchers that never match, price
 * triggers over 10 sources, hourly schedules) and mixed in its proportion (40/30/30), at
 * concurrency 16. Each block of creates alternates with a block of floor requests at the same
 * concurrency (GET /v1/livez, no key; GET /v1/secrets, a key and one small read): the floor says
 * what the machine's load leaves for any request at the time. Also counts what one create costs in
 * Neo RPC calls (by method, through the stack's counting proxy), PostgreSQL transactions and CPU ms
 * per process (above each one's CPU in an idle window just before). With
 * BENCH_CREATES_CPU_PROF set to a directory, every process of the stack writes a CPU profile there.
 * A benchmark, not a test: it exits 0 whatever its figures.
 */
import { loadavg } from 'node:os';
import { deployBenchAction, nonMatchingWatcher, randomAddress, type Trigger } from './automation-runs.ts';
import { countFrom, printReport, progress, runBench, runConcurrent } from './measure.ts';
import { sampleGroups } from './proc.ts';
import { startScaleStack, type ScaleStack } from './scale-stack.ts';
import { apiClient } from './scratch-stack.ts';
import { startPriceServer } from '../test/support/price-server.ts';

const counts = {
  /** Creates per block; every kind runs `rounds` blocks. */
  block: countFrom('BENCH_CREATES_BLOCK', 400),
  rounds: countFrom('BENCH_CREATES_ROUNDS', 2),
  floorRequests: countFrom('BENCH_CREATES_FLOOR', 800),
  /** The idle window before each block of creates, for each process's CPU above it. */
  idleMs: countFrom('BENCH_CREATES_IDLE_MS', 3000),
  concurrency: countFrom('BENCH_CREATE_CONCURRENCY', 16),
  sources: 10,
};

/** BENCH_CREATES_KINDS=schedules,mixed: only those kinds' blocks (all four by default). */
const kindsWanted = process.env.BENCH_CREATES_KINDS?.split(',').map((kind) => kind.trim());

const load = () =>
  loadavg()
    .map((value) => value.toFixed(2))
    .join(' ');

type Kind = 'watchers' | 'prices' | 'schedules' | 'mixed';

/** The stack's processes, by command line (as bench:scale tells them). */
const groups = {
  api: /neoflow\.js api/,
  worker: /neoflow\.js worker/,
  temporal: /temporal server start-dev/,
  postgres: /(^|\/)postgres(:| |$)/,
};
type Group = keyof typeof groups;

/** Each process's CPU (% of one core) over `ms` of nothing created: what a block's cost is counted above. */
async function idleCpu(ms: number) {
  const sampler = sampleGroups(groups);
  await new Promise((resolve) => setTimeout(resolve, ms));
  const sampled = sampler.stop();
  return Object.fromEntries(Object.entries(sampled).map(([name, sample]) => [name, sample.cpuPercent])) as Record<
    Group,
    number
  >;
}

interface Block {
  kind: Kind | 'livez' | 'secrets';
  perSecond: number;
  load: string;
  rpc?: Map<string, number>;
  transactions?: number;
  /** CPU ms per create by process, above its idle CPU just before the block. */
  cpuMs?: Record<Group, number>;
}

async function transactionsSoFar(stack: ScaleStack) {
  const em = stack.orm.em.fork();
  await em.execute('select pg_stat_force_next_flush()');
  const [row] = await em.execute<{ total: string }[]>(
    'select xact_commit + xact_rollback as total from pg_stat_database where datname = current_database()',
  );
  return Number(row!.total);
}

async function measure(stack: ScaleStack) {
  const prices = await startPriceServer();
  try {
    const call = apiClient(stack);
    const action = await deployBenchAction(call);
    const watcher = nonMatchingWatcher(randomAddress());
    const price = (i: number): Trigger => ({
      type: 'price',
      asset: 'NEO',
      condition: 'above',
      value: '1000',
      currency: 'USD',
      source: { url: prices.url.replace('/price/', `/price/s${i % counts.sources}/`), path: 'data.price' },
      pollInterval: 30,
    });
    const schedule = (i: number): Trigger => ({
      type: 'schedule',
      cron: `${i % 60} ${Math.floor(i / 60) % 60} * * * *`,
    });
    // 40/30/30 in every run of ten.
    const mixed = (i: number): Trigger => (i % 10 < 4 ? watcher(i) : i % 10 < 7 ? price(i) : schedule(i));
    const triggers: Record<Kind, (i: number) => Trigger> = {
      watchers: watcher,
      prices: price,
      schedules: schedule,
      mixed,
    };
    let made = 0;
    const blocks: Block[] = [];
    const floor = async (kind: 'livez' | 'secrets') => {
      const path = kind === 'livez' ? '/livez' : '/secrets?limit=1';
      const { elapsedMs } = await runConcurrent(counts.floorRequests, counts.concurrency, async () => {
        const answer = await call('GET', path);
        if (answer.status !== 200) throw new Error(`${path} answered ${answer.status}`);
      });
      blocks.push({ kind, perSecond: counts.floorRequests / (elapsedMs / 1000), load: load() });
    };
    for (let round = 0; round < counts.rounds; round++) {
      for (const kind of (Object.keys(triggers) as Kind[]).filter((kind) => kindsWanted?.includes(kind) ?? true)) {
        await floor(round % 2 === 0 ? 'livez' : 'secrets');
        const idle = await idleCpu(counts.idleMs);
        const rpcBefore = stack.rpc.snapshot();
        const transactionsBefore = await transactionsSoFar(stack);
        const sampler = sampleGroups(groups);
        const { elapsedMs } = await runConcurrent(counts.block, counts.concurrency, async (k) => {
          const i = made + k;
          const body = { name: `${kind}-${i}`, trigger: triggers[kind](i), action };
          const answer = await call('POST', '/automations', body);
          if (answer.status !== 201)
            throw new Error(`create answered ${answer.status}: ${JSON.stringify(answer.body)}`);
        });
        const sampled = sampler.stop();
        const cpuMs = Object.fromEntries(
          (Object.keys(groups) as Group[]).map((name) => [
            name,
            ((sampled[name].cpuPercent - idle[name]) * elapsedMs) / 100 / counts.block,
          ]),
        ) as Record<Group, number>;
        made += counts.block;
        const rpcAfter = stack.rpc.snapshot();
        const rpc = new Map([...rpcAfter].map(([method, n]) => [method, n - (rpcBefore.get(method) ?? 0)]));
        const transactions = (await transactionsSoFar(stack)) - transactionsBefore;
        const block = { kind, perSecond: counts.block / (elapsedMs / 1000), load: load(), rpc, transactions, cpuMs };
        blocks.push(block);
        progress(`${line(block)} (${made} automations)`);
      }
    }
    report(blocks);
  } finally {
    await prices.close();
  }
}

function line(block: Block) {
  const perCreate = (n: number) => (n / counts.block).toFixed(2);
  const rpc = block.rpc
    ? ` neo rpc per create ${
        [...block.rpc]
          .filter(([, n]) => n > 0)
          .map(([m, n]) => `${m} ${perCreate(n)}`)
          .join(', ') || 'none'
      };` +
      ` pg transactions per create ${perCreate(block.transactions!)} (the worker's and the API's, all);` +
      ` cpu ms per create ${Object.entries(block.cpuMs!)
        .map(([name, ms]) => `${name} ${ms.toFixed(1)}`)
        .join(', ')}`
    : '';
  return `${block.kind.padEnd(9)} ${block.perSecond.toFixed(1).padStart(6)}/s, load ${block.load};${rpc}`;
}

function report(blocks: Block[]) {
  const mean = (kind: Block['kind']) => {
    const of = blocks.filter((block) => block.kind === kind);
    return of.reduce((sum, block) => sum + block.perSecond, 0) / of.length;
  };
  const kinds = (['watchers', 'prices', 'schedules', 'mixed', 'livez', 'secrets'] as const).filter((kind) =>
    blocks.some((block) => block.kind === kind),
  );
  printReport(
    'creates',
    [
      `  concurrency ${counts.concurrency}, ${counts.block} creates a block, ${counts.rounds} rounds; floor blocks of ${counts.floorRequests} requests between`,
      ...blocks.map((block) => `  ${line(block)}`),
      `  means: ${kinds.map((kind) => `${kind} ${mean(kind).toFixed(1)}/s`).join(', ')}`,
    ],
    `, load now ${load()}`,
  );
  process.stdout.write(
    `${JSON.stringify(Object.fromEntries(kinds.map((kind) => [kind, Math.round(mean(kind) * 10) / 10])))}\n`,
  );
}

await runBench('creates', {
  counts,
  notes: [`load average at start: ${load()}`],
  start: (report) =>
    startScaleStack(
      report,
      process.env.BENCH_CREATES_CPU_PROF
        ? { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${process.env.BENCH_CREATES_CPU_PROF}` }
        : {},
    ),
  measure,
});

/**
 * `npm run bench:hook-flood` (issue 49): one client floods one inbound webhook at 1,000 requests a
 * second while another account calls the API at a steady pace; does the other account still get
 * quick answers? `neoflow up` as a user starts it (default hook rates: 60/10s a hook, 300/10s an
 * account, default log level), account A with a `webhook` automation, account B with a key. The
 * flood comes from `wrk` (Debian's, `apt-get install wrk`) in its own process, open loop on a
 * fixed schedule (bench/hook-flood.lua). Rounds of two blocks, alternated: B alone (the floor),
 * then B during the flood. B sends GET /v1/automations every BENCH_HOOK_PACE_MS, not waiting for
 * the answers. Printed per block and pooled: B's p50/p90/p99/max, its max by second of the block
 * and its time inside the API (the API's request log: what a client elsewhere would see, less the
 * network), B's client's own loop delay (a process of its own, bench/hook-flood-client.ts, on the
 * 2 cores it measures), the flood's answers (202, 429, other) and the rate wrk reached, the API's
 * and PostgreSQL's CPU, the API's event-loop delay and GC pauses (bench/loop-probe.ts); at the
 * end, runs recorded against what the default rate allows (a full bucket of 60 at each flood
 * block's start, 6 a second after). Target: B's max < 300 ms during the flood, read against the
 * floor's own spread.
 */
import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createInterface } from 'node:readline';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { countFrom, ms, perSecond, printReport, progress, runBench, summarise } from './measure.ts';
import { loadLine, sampleGroups, sampleMachine } from './proc.ts';
import type { ClientReport } from './hook-flood-client.ts';
import { apiClient } from './scratch-stack.ts';
import { startUpStack, type UpStack } from './up-stack.ts';

const counts = {
  rounds: countFrom('BENCH_HOOK_ROUNDS', 3),
  blockSeconds: countFrom('BENCH_HOOK_BLOCK_SECONDS', 10),
  /** Requests a second wrk offers the hook. */
  rate: countFrom('BENCH_HOOK_FLOOD_RATE', 1000),
  connections: countFrom('BENCH_HOOK_CONNECTIONS', 64),
  /** Seconds of each closed-loop block that measures a refusal's CPU, the API's and the floor's, alternated. */
  costSeconds: countFrom('BENCH_HOOK_COST_SECONDS', 5),
  /** B starts a GET every this many ms. */
  paceMs: countFrom('BENCH_HOOK_PACE_MS', 20),
  /**
   * Seconds of B alone then of flood before the first measured block. A stack's first flood pays
   * its processes' first compiles of the delivery and run paths and their first full GC: on one
   * 2-core machine B's max was 394–1,132 ms in a 10 s first flood (when the first lasted 3 s, the
   * next paid it in 14 runs of 19, 301–924 ms), on another 97–172 ms (docs/performance.md). The
   * target is the service's steady answer; the warm-up's figures are printed, not counted.
   */
  warmUpSeconds: countFrom('BENCH_HOOK_WARM_UP_SECONDS', 10),
};
const logLevel = process.env.BENCH_HOOK_LOG_LEVEL ?? 'info';
/** A folder for V8 CPU profiles of the stack's Node processes: each block then prints its window for bench/profile-window.ts. */
const profileDir = process.env.BENCH_HOOK_CPU_PROF;
const targetMaxMs = 300;
const clientScript = new URL('./hook-flood-client.ts', import.meta.url).pathname;
const luaScript = new URL('./hook-flood.lua', import.meta.url).pathname;
const probeModule = new URL('./loop-probe.ts', import.meta.url).pathname;

interface Answer {
  data?: { id: string };
  id?: string;
  trigger?: { url: string; token: string };
}

interface Stack extends UpStack {
  probeFile: string;
}

interface Flood {
  requests: number;
  durationUs: number;
  accepted: number;
  limited: number;
  other: number;
  errors: number;
  latencyUs: { p50: number; p99: number; max: number };
}

interface Block {
  round: number;
  kind: 'floor' | 'flood';
  /** The block's span, ms since 1970. */
  window: [number, number];
  b: number[];
  /** B's slowest answer among those sent in each second of the block, ms. */
  bMaxBySecond: number[];
  /** The API's own time for B's requests (its request log: from the router's first middleware to the answer), ms. */
  bInApi: { p99: number; max: number };
  /** B's client's event-loop delay, the longest, ms: it shares the machine it measures. */
  clientLoopMaxMs: number;
  bFailed: number;
  flood?: Flood;
  /** Of the stack's processes (wrk has exited by the block's end, when the tree is read). */
  cpu: Record<'api' | 'postgres' | 'temporal' | 'worker', number>;
  busyPercent: number;
  load: string;
  loop: { p99: number; max: number };
  gc: { ms: number; maxMs: number; majorMaxMs: number };
}

async function start(report: typeof progress): Promise<Stack> {
  const scratch = await mkdtemp(join(tmpdir(), 'neoflow-bench-hook-'));
  const probeFile = join(scratch, 'probe.jsonl');
  const stack = await startUpStack(report, '1000000/1s', {
    NEOFLOW_LOG_LEVEL: logLevel,
    NODE_OPTIONS: `--import ${probeModule}${profileDir ? ` --cpu-prof --cpu-prof-dir=${profileDir}` : ''}`,
    BENCH_PROBE_FILE: probeFile,
    BENCH_PROBE_COMMAND: 'api',
  });
  return {
    ...stack,
    probeFile,
    stop: async () => {
      await stack.stop();
      await rm(scratch, { recursive: true, force: true });
    },
  };
}

async function measure(stack: Stack) {
  await promisify(execFile)('wrk', ['--version']).catch((error: { stdout?: string }) => {
    // wrk prints its version and exits 1.
    if (!error.stdout?.startsWith('wrk')) throw new Error('bench:hook-flood needs wrk: apt-get install -y wrk');
  });
  const a = apiClient<Answer>(stack);
  const deployed = await a('POST', '/functions', {
    name: 'hook-noop',
    code: 'module.exports = async () => 1;',
    runtime: 'node18',
  });
  if (deployed.status !== 201) throw new Error(`deploy answered ${deployed.status}: ${JSON.stringify(deployed.body)}`);
  const created = await a('POST', '/automations', {
    name: 'flooded hook',
    trigger: { type: 'webhook', auth: { type: 'token' } },
    action: { type: 'function', functionId: deployed.body.data!.id },
  });
  if (created.status !== 201) throw new Error(`create answered ${created.status}: ${JSON.stringify(created.body)}`);
  const hook = { url: `${stack.apiUrl}${created.body.trigger!.url}`, token: created.body.trigger!.token };
  const bClient = await startClient(`${stack.apiUrl}/v1/automations`, await stack.keyOf('bench-b'));

  const blocks: Block[] = [];
  let warm: Block;
  try {
    // Warm-up, both paths alike: B's reads alone, then a flood; their figures are not counted.
    await runBlock(stack, 0, 'floor', bClient, hook, counts.warmUpSeconds);
    warm = await runBlock(stack, 0, 'flood', bClient, hook, counts.warmUpSeconds);
    progress(`warmed up: ${blockLine(warm)}`);
    for (let round = 1; round <= counts.rounds; round++) {
      for (const kind of ['floor', 'flood'] as const) {
        const block = await runBlock(stack, round, kind, bClient, hook, counts.blockSeconds);
        progress(blockLine(block));
        blocks.push(block);
      }
    }
  } finally {
    bClient.stop();
  }
  const runs = await runsOf(stack.databaseUrl, created.body.id!);
  // A made-up path of a hook's shape has a bucket as a hook does, but the few it lets through
  // answer 404 without starting a run, whose cost would be counted against the refusals.
  const cost = await refusalCost({
    url: `${stack.apiUrl}/v1/hooks/hk_${randomBytes(24).toString('base64url')}`,
    token: '',
  });
  report(blocks, { runs, warm }, cost);
}

async function runBlock(
  stack: Stack,
  round: number,
  kind: Block['kind'],
  bClient: BClient,
  hook: { url: string; token: string },
  seconds: number,
): Promise<Block> {
  const groups = sampleGroups({
    api: /neoflow\.js api$/,
    postgres: /postgres/,
    temporal: /temporal/,
    worker: /neoflow\.js worker$/,
  });
  const machine = sampleMachine();
  const began = Date.now();
  const logFrom = stack.output().length;
  const flood = kind === 'flood' ? runWrk(hook, seconds) : undefined;
  const client = await bClient.block(seconds);
  const floodResult = await flood;
  const ended = Date.now();
  const cpu = groups.stop();
  const probe = await probeWindow(stack.probeFile, began, ended);
  const inApi = stats(bTimesInApi(stack.output().slice(logFrom)));
  return {
    round,
    kind,
    window: [began, ended],
    b: client.times,
    bMaxBySecond: client.maxBySecond,
    bInApi: { p99: inApi.p99, max: inApi.max },
    clientLoopMaxMs: client.loopMaxMs,
    bFailed: client.failed,
    ...(floodResult ? { flood: floodResult } : {}),
    cpu: {
      api: cpu.api.cpuPercent,
      postgres: cpu.postgres.cpuPercent,
      temporal: cpu.temporal.cpuPercent,
      worker: cpu.worker.cpuPercent,
    },
    busyPercent: machine.stop().busyPercent,
    load: loadLine(),
    ...probe,
  };
}

/** B's client (bench/hook-flood-client.ts), started once: each block asks it for `seconds` of GETs. */
interface BClient {
  block: (seconds: number) => Promise<ClientReport>;
  stop: () => void;
}

async function startClient(url: string, apiKey: string): Promise<BClient> {
  const child = spawn(process.execPath, [clientScript, url, apiKey, String(counts.paceMs)], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const next = async () => {
    const line = await lines.next();
    if (line.done) throw new Error("B's client exited");
    return line.value;
  };
  if ((await next()) !== 'ready') throw new Error("B's client did not start");
  return {
    block: async (seconds) => {
      child.stdin.write(`${seconds}\n`);
      return JSON.parse(await next()) as ClientReport;
    },
    stop: () => child.kill(),
  };
}

/** wrk for `seconds` against the hook, at `counts.rate` a second from one thread; its JSON line. */
async function runWrk(
  hook: { url: string; token: string },
  seconds: number,
  rate = counts.rate,
  connections = counts.connections,
): Promise<Flood> {
  const args = ['-t1', `-c${connections}`, `-d${seconds}s`, '--timeout', '10s', '-s', luaScript, hook.url];
  const child = spawn('wrk', [...args, '--', String(rate), hook.token], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const code = await new Promise<number | null>((resolveExit) => child.once('exit', resolveExit));
  const line = output.split('\n').find((text) => text.startsWith('{"requests"'));
  if (code !== 0 || !line) throw new Error(`wrk exited ${code}:\n${output}`);
  return JSON.parse(line) as Flood;
}

interface Cost {
  /** CPU µs a request to a made-up hook path (refused but for the few its rate lets through, 404), by block. */
  api: number[];
  /** The same of a bare `node:http` server answering 429 (bench/floor/refusal-server.ts), by block. */
  floor: number[];
  /** Requests a second each reached, closed loop. */
  apiRates: number[];
  floorRates: number[];
  accepted: number;
  /** The API's CPU with no request, in % of a core: taken off its blocks' before dividing. */
  idlePercent: number;
}

/**
 * What a refused request costs the API's process, against the floor: wrk in closed loop (16
 * connections, as fast as answers come) at the hook and at a bare server answering the same 429,
 * in alternated blocks of `costSeconds`, each process's CPU time over the requests answered.
 */
async function refusalCost(hook: { url: string; token: string }): Promise<Cost> {
  const floor = spawn(process.execPath, [new URL('./floor/refusal-server.ts', import.meta.url).pathname], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    const port = await new Promise<string>((resolvePort) =>
      floor.stdout.once('data', (chunk: Buffer) => resolvePort(chunk.toString().trim())),
    );
    const cost: Cost = { api: [], floor: [], apiRates: [], floorRates: [], accepted: 0, idlePercent: 0 };
    // Empties the path's bucket: what the blocks measure is its refusals.
    await runWrk(hook, 2, 0, 16);
    // What the API spends with no request (its worker's polls, its timers), taken off its blocks.
    const idle = sampleGroups({ api: /neoflow\.js api$/ });
    await new Promise((resolveIdle) => setTimeout(resolveIdle, counts.costSeconds * 1000));
    const idlePercent = idle.stop().api.cpuPercent;
    cost.idlePercent = idlePercent;
    for (let block = 0; block < 4; block++) {
      const onFloor = block % 2 === 0;
      const groups = sampleGroups({ api: /neoflow\.js api$/, floor: /refusal-server\.ts$/ });
      const url = onFloor ? `http://127.0.0.1:${port}/v1/hooks/floor` : hook.url;
      const began = Date.now();
      const flood = await runWrk({ url, token: hook.token }, counts.costSeconds, 0, 16);
      const window = profileDir ? `; window ${began} ${Date.now()}` : '';
      const cpu = groups.stop()[onFloor ? 'floor' : 'api'].cpuPercent - (onFloor ? 0 : idlePercent);
      const perRequestUs = ((cpu / 100) * (flood.durationUs / 1e6) * 1e6) / flood.requests;
      (onFloor ? cost.floor : cost.api).push(perRequestUs);
      (onFloor ? cost.floorRates : cost.apiRates).push(floodRate(flood));
      if (!onFloor) cost.accepted += flood.other;
      progress(
        `refusal cost, ${onFloor ? 'floor' : 'api'}: ${perRequestUs.toFixed(0)} µs CPU a request at ${perSecond(floodRate(flood))}${window}`,
      );
    }
    return cost;
  } finally {
    floor.kill();
  }
}

/** The API's event-loop delay (worst p99 of a second, worst single delay) and GC pauses in [from, to]. */
async function probeWindow(file: string, from: number, to: number) {
  const text = await readFile(file, 'utf8').catch(() => '');
  const seconds = text
    .split('\n')
    .filter(Boolean)
    .map(
      (line) =>
        JSON.parse(line) as {
          at: number;
          loop: { p99: number; max: number };
          gc: { ms: number; maxMs: number; majorMaxMs: number };
        },
    )
    .filter(({ at }) => at > from && at <= to + 500);
  const most = (pick: (second: (typeof seconds)[number]) => number) => Math.max(0, ...seconds.map(pick));
  return {
    loop: { p99: most((second) => second.loop.p99), max: most((second) => second.loop.max) },
    gc: {
      ms: seconds.reduce((sum, second) => sum + second.gc.ms, 0),
      maxMs: most((second) => second.gc.maxMs),
      majorMaxMs: most((second) => second.gc.majorMaxMs),
    },
  };
}

async function runsOf(databaseUrl: string, automationId: string): Promise<number> {
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    const { rows } = await db.query<{ count: string }>(
      `select count(*) as count from automation_runs where automation_id = $1`,
      [automationId],
    );
    return Number(rows[0]!.count);
  } finally {
    await db.end();
  }
}

/** The API's own times for B's `GET /v1/automations`, from its request log lines (NEOFLOW_LOG_LEVEL info). */
function bTimesInApi(logged: string): number[] {
  return logged
    .split('\n')
    .filter((line) => line.includes('"method":"GET"') && line.includes('"path":"/v1/automations"'))
    .map((line) => (JSON.parse(line.slice(line.indexOf('{'))) as { ms: number }).ms);
}

const floodRate = (flood: Flood) => flood.requests / (flood.durationUs / 1e6);

/** Nearest-rank percentiles of B's latencies, in ms. */
function stats(samples: number[]) {
  const sorted = [...samples].sort((x, y) => x - y);
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
  if (samples.length === 0) return { p50: 0, p90: 0, p99: 0, max: 0, n: 0 };
  return { p50: at(50), p90: at(90), p99: at(99), max: summarise(samples).max, n: samples.length };
}

function latencies(samples: number[]) {
  const { p50, p90, p99, max, n } = stats(samples);
  return `p50 ${ms(p50)}, p90 ${ms(p90)}, p99 ${ms(p99)}, max ${ms(max)} (n ${n})`;
}

function blockLine(block: Block): string {
  const flood = block.flood
    ? `; flood ${perSecond(floodRate(block.flood))}: 202 ${block.flood.accepted}, 429 ${block.flood.limited}, other ${block.flood.other}, errors ${block.flood.errors}, its p99 ${(block.flood.latencyUs.p99 / 1000).toFixed(1)} ms`
    : '';
  const cpu = Object.entries(block.cpu)
    .map(([name, percent]) => `${name} ${percent.toFixed(0)}%`)
    .join(' ');
  return (
    `round ${block.round} ${block.kind.padEnd(5)}: B ${latencies(block.b)}, failed ${block.bFailed}${flood}; ` +
    `B's max by second sent ${block.bMaxBySecond.map((value) => value.toFixed(0)).join(' ')} ms; ` +
    `in the API p99 ${ms(block.bInApi.p99)} max ${ms(block.bInApi.max)}; B's client's loop delay max ${ms(block.clientLoopMaxMs)}; ` +
    `cpu ${cpu}; machine ${block.busyPercent.toFixed(0)}% busy, load ${block.load}; ` +
    `api loop delay p99 ${ms(block.loop.p99)} max ${ms(block.loop.max)}, gc ${ms(block.gc.ms)} (longest ${ms(block.gc.maxMs)}, major ${ms(block.gc.majorMaxMs)})` +
    (profileDir ? `; window ${block.window.join(' ')}` : '')
  );
}

function report(blocks: Block[], recorded: { runs: number; warm: Block }, cost: Cost) {
  const of = (kind: Block['kind']) => blocks.filter((block) => block.kind === kind);
  const pooled = (kind: Block['kind']) => of(kind).flatMap((block) => block.b);
  const floods = of('flood').map((block) => block.flood!);
  const sum = (pick: (flood: Flood) => number) => floods.reduce((total, flood) => total + pick(flood), 0);
  const byBlock = (kind: Block['kind'], pick: (figures: ReturnType<typeof stats>) => number) =>
    of(kind).map((block) => pick(stats(block.b)).toFixed(0));
  const apiCpu = (kind: Block['kind']) => of(kind).reduce((total, block) => total + block.cpu.api, 0) / of(kind).length;
  const rate = sum((flood) => flood.requests) / (sum((flood) => flood.durationUs) / 1e6);
  // CPU the API spent a flood request: its CPU above the floor blocks', over the requests answered.
  const cpuPerRequestUs = (((apiCpu('flood') - apiCpu('floor')) / 100) * 1e6) / rate;
  const floodMax = Math.max(...of('flood').map((block) => stats(block.b).max));
  const accepted = sum((flood) => flood.accepted) + recorded.warm.flood!.accepted;
  // Each floor block lasts a whole window or more: every flood block starts with a full bucket.
  const allowed = (floods.length + 1) * 60 + 6 * (counts.blockSeconds * floods.length + counts.warmUpSeconds);
  printReport('hook-flood', [
    ...blocks.map((block) => `  ${blockLine(block)}`),
    `  flood: offered ${counts.rate}/s from one wrk thread over ${counts.connections} connections, reached ${perSecond(rate)}; ` +
      `202 ${sum((flood) => flood.accepted)}, 429 ${sum((flood) => flood.limited)}, other ${sum((flood) => flood.other)}, errors ${sum((flood) => flood.errors)}`,
    `  runs recorded ${recorded.runs}; the default rate allows ${allowed} (60 a flood block, 6/s of flood, warm-up included); ` +
      `wrk counted ${accepted} answers 202 (not those in flight when it stops)`,
    ...(['floor', 'flood'] as const).map(
      (kind) =>
        `  B ${kind === 'floor' ? 'alone (floor)' : 'during flood '}: ${latencies(pooled(kind))}; ` +
        `by block p99 ${byBlock(kind, (figures) => figures.p99).join(', ')} ms, max ${byBlock(kind, (figures) => figures.max).join(', ')} ms; ` +
        `in the API, by block max ${of(kind)
          .map((block) => block.bInApi.max.toFixed(0))
          .join(', ')} ms; B's client's loop delay max ${of(kind)
          .map((block) => block.clientLoopMaxMs.toFixed(0))
          .join(', ')} ms`,
    ),
    `  the stack's first flood (warm-up, ${counts.warmUpSeconds} s, not counted): B max ${ms(stats(recorded.warm.b).max)}, in the API ${ms(recorded.warm.bInApi.max)}`,
    `  api CPU ${apiCpu('floor').toFixed(1)}% of a core alone, ${apiCpu('flood').toFixed(1)}% in the flood: ${cpuPerRequestUs.toFixed(0)} µs a flood request`,
    `  a refused request's CPU, closed loop, api's idle ${cost.idlePercent.toFixed(1)}% taken off: api ${cost.api.map((us) => us.toFixed(0)).join(', ')} µs ` +
      `(${cost.apiRates.map((value) => value.toFixed(0)).join(', ')}/s, ${cost.accepted} let through: 404), ` +
      `bare node:http floor ${cost.floor.map((us) => us.toFixed(0)).join(', ')} µs (${cost.floorRates.map((value) => value.toFixed(0)).join(', ')}/s); ` +
      `ratio ${(cost.api.reduce((a, b) => a + b, 0) / cost.floor.reduce((a, b) => a + b, 0)).toFixed(2)}`,
    `  verdict: B's max during the flood < ${targetMaxMs} ms: ${floodMax < targetMaxMs ? 'PASS' : 'MISS'} (${ms(floodMax)}); ` +
      `rate reached ≥ 95% of offered: ${rate >= 0.95 * counts.rate ? 'PASS' : 'MISS'}`,
  ]);
}

await runBench('hook-flood', {
  counts,
  notes: [`log level ${logLevel}; wrk ${luaScript}`],
  start,
  measure,
});

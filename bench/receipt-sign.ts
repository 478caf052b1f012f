/**
 * `npm run bench:receipts`: what signing an execution's receipt (issue 51) costs a run, against the
 * floor. Two parts, each alternated in blocks in one run:
 *
 * 1. **A receipt, in this process**: CPU µs per receipt of each step as a run's end takes it, on a
 *    typical run (a small function, its params, result, two log lines, one chain read) and a
 *    large one (250 KiB of code, 100 log lines, a 64 KiB result): `hashes` (receiptFieldsOf: SHA-256
 *    of the code, RFC 8785 JSON of config, params, outcome, logs, secrets read and host calls, each
 *    hashed), `preimage` (the 394 bytes laid out), `sign` (signReceipt: ECDSA secp256r1 and low s),
 *    and `run`, all of it as storeOutcome calls it (receiptSubject's values as stored, then
 *    signedReceipt). Floors: `floor`, Node's bare `crypto.sign` of the same preimage with the same
 *    key; `plainHashes`, SHA-256 of the code and of each value's JSON.stringify (not canonical).
 * 2. **The run path**: runExecution, as a worker's local activity runs it (row read, isolate run,
 *    the end and its result stored in one statement), over a scratch database on DATABASE_URL,
 *    one run at a time, blocks with and without a signer in turn. Per run: this process's CPU
 *    (isolated-vm's threads included) and the CPU of PostgreSQL's backends serving the scratch
 *    database (other databases on the server are not counted), and the wall time. The function
 *    reads no chain; its network is a fixed magic (a node pool keeps the magic once probed).
 *
 * Needs DATABASE_URL naming a server where it may create a scratch database, e.g.
 * `DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres`. Prints figures; exits 0 either way.
 */
import { randomBytes, sign } from 'node:crypto';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Networks } from '../src/chain/nodes/networks.ts';
import { executeOnce } from '../src/db/execute-once.ts';
import { egressPolicy } from '../src/egress/egress-policy.ts';
import { AccountSlots } from '../src/functions/account-slots.ts';
import { newExecution } from '../src/functions/execution-record.ts';
import {
  receiptSubject,
  signedReceipt,
  type ReceiptSigner,
  type RunFacts,
} from '../src/functions/execution-receipt.ts';
import type { Execution } from '../src/functions/execution.entity.ts';
import { runExecution } from '../src/functions/run-execution.ts';
import { RunTurns } from '../src/functions/run-turns.ts';
import { migrate, openOrm } from '../src/orm.ts';
import { noTee, receiptFieldsOf, sha256, type ReceiptSubject } from '../src/receipts/receipt-claims.ts';
import { newReceiptPrivateKey, receiptKeyOf, signReceipt } from '../src/receipts/receipt-key.ts';
import { receiptPreimage } from '../src/receipts/receipt-preimage.ts';
import { SpareIsolates } from '../src/sandbox/spare-isolates.ts';
import { Account } from '../src/auth/account.entity.ts';
import { countFrom, printReport, progress } from './measure.ts';
import { cpuSeconds } from './proc.ts';
import { storeFunction } from '../test/support/function-rows.ts';

const counts = {
  receiptsPerBlock: countFrom('BENCH_RECEIPTS_PER_BLOCK', 2000),
  runsPerBlock: countFrom('BENCH_RECEIPT_RUNS_PER_BLOCK', 100),
  rounds: countFrom('BENCH_RECEIPT_ROUNDS', 5),
};

const key = receiptKeyOf(newReceiptPrivateKey());
/** What a worker opens with NEOFLOW_RECEIPT_KEY set (openReceiptSigner). */
const signer: ReceiptSigner = { key, tee: noTee, evidence: null };
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const spread = (values: number[]) => `${Math.min(...values).toFixed(1)}–${Math.max(...values).toFixed(1)}`;
/** CPU µs (user and system, every thread of the process) `work` takes, over `times` calls. */
function cpuMicros(times: number, work: () => unknown): number {
  const before = process.cpuUsage();
  for (let i = 0; i < times; i++) work();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / times;
}

const typicalCode =
  'module.exports = async (context) => { context.log.info("start"); return { x: context.params.x + 1 }; };';

function subjectOf(size: 'typical' | 'large'): ReceiptSubject {
  const large = size === 'large';
  const at = new Date();
  return {
    networkMagic: 860833102,
    executionId: `exec_${randomBytes(10).toString('hex')}`,
    functionId: `func_${randomBytes(10).toString('hex')}`,
    code: large ? `// ${'x'.repeat(250 * 1024)}\n${typicalCode}` : typicalCode,
    config: {
      runtime: 'node18',
      timeout: 30,
      environment: { MODE: 'bench' },
      secrets: ['API_KEY'],
      allowedHosts: [],
      version: 3,
    },
    params: { x: 41, pair: 'NEO/USDT' },
    status: 'completed',
    outcome: large ? { blob: 'r'.repeat(64 * 1024) } : { x: 42 },
    logs: Array.from({ length: large ? 100 : 2 }, (_, i) => ({
      level: 'info',
      message: `line ${i}`,
      timestamp: at.toISOString(),
    })),
    secretsRead: [{ name: 'API_KEY', version: 1 }],
    hostCalls: [{ method: 'getBlockCount', target: '', resultHash: 'ab'.repeat(32) }],
    startedAt: at,
    completedAt: at,
  };
}

/** Part 1: each step of a receipt, blocks in turn, `rounds` times; medians and spreads in µs. */
function receiptSteps(size: 'typical' | 'large'): string[] {
  const subject = subjectOf(size);
  const fields = receiptFieldsOf(subject, key.publicKey, noTee);
  const preimage = receiptPreimage(fields);
  const { executionId, functionId, params, outcome, logs, secretsRead, startedAt, completedAt } = subject;
  const ended = { id: executionId, function: { id: functionId }, params: params as Execution['params'] };
  const row = {
    ...ended,
    status: 'completed' as const,
    error: null,
    logs: logs as Execution['logs'],
    secretsRead,
    startedAt,
    completedAt,
  };
  const facts: RunFacts = {
    networkMagic: subject.networkMagic,
    version: { ...subject.config, runtime: 'node18', code: subject.code },
    hostCalls: subject.hostCalls,
  };
  const values = [subject.config, params, outcome, logs, secretsRead, subject.hostCalls];
  const steps = {
    floor: () => sign('sha256', preimage, { key: key.privateKey, dsaEncoding: 'ieee-p1363' }),
    plainHashes: () => [sha256(subject.code), ...values.map((value) => sha256(JSON.stringify(value)))],
    hashes: () => receiptFieldsOf(subject, key.publicKey, noTee),
    preimage: () => receiptPreimage(fields),
    sign: () => signReceipt(key, preimage),
    run: () => signedReceipt(signer, receiptSubject(row, facts, outcome)),
  };
  const times = size === 'large' ? Math.max(1, Math.floor(counts.receiptsPerBlock / 10)) : counts.receiptsPerBlock;
  for (const work of Object.values(steps)) cpuMicros(Math.ceil(times / 10), work);
  const figures = Object.fromEntries(Object.keys(steps).map((name) => [name, [] as number[]]));
  for (let round = 0; round < counts.rounds; round++) {
    for (const [name, work] of Object.entries(steps)) figures[name]!.push(cpuMicros(times, work));
  }
  const floor = median(figures.floor!);
  return [
    `  ${size} receipt (${(subject.code.length / 1024).toFixed(1)} KiB code, ${(subject.logs as unknown[]).length} log lines), CPU µs a receipt, median (min–max of ${counts.rounds} rounds):`,
    ...Object.entries(figures).map(
      ([name, values]) =>
        `    ${name.padEnd(11)} ${median(values).toFixed(1).padStart(7)} µs (${spread(values)})  ${(median(values) / floor).toFixed(2)}× the floor`,
    ),
  ];
}

/** CPU seconds PostgreSQL's backends serving `database` used so far (each read from /proc). */
async function backendsCpu(orm: MikroORM, database: string): Promise<number> {
  const rows = await orm.em
    .fork()
    .getConnection()
    .execute<{ pid: number }[]>(`select pid from pg_stat_activity where datname = ?`, [database]);
  let total = 0;
  for (const { pid } of rows) {
    try {
      total += cpuSeconds(pid);
    } catch {
      // A backend that ended meanwhile: its time is gone with it, in both kinds of block alike.
    }
  }
  return total;
}

/** Part 2: runExecution with and without a signer, blocks in turn. */
async function runPath(adminUrl: string): Promise<string[]> {
  const name = `neoflow_bench_${randomBytes(4).toString('hex')}`;
  await executeOnce(adminUrl, `create database "${name}"`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const orm = await openOrm(url.toString());
  const isolates = new SpareIsolates(128, 2);
  try {
    await migrate(orm);
    const em = orm.em.fork();
    const account = em.create(Account, { name: 'bench' });
    await em.flush();
    const fn = await storeFunction(orm, account.id, 'bench', typicalCode);
    const networks = { first: { getNetworkMagic: () => Promise.resolve(860833102) } } as unknown as Networks;
    const base = {
      masterKeys: { current: randomBytes(32), previous: [] },
      networks,
      egress: egressPolicy({ hosts: [], ranges: [] }),
      memoryLimitMb: 128,
      serviceCallsPerRun: 100,
      isolates,
      slots: new AccountSlots({ queuedPerAccount: 1, queued: 1, running: 1 }),
      turns: new RunTurns(15_000),
    };
    /** `runs` executions recorded, then run one at a time: per run CPU ms here and in PostgreSQL, and wall ms. */
    const block = async (receipts: ReceiptSigner | undefined, runs: number) => {
      const recording = orm.em.fork();
      const ids: string[] = [];
      for (let i = 0; i < runs; i++) {
        const execution = newExecution(recording, fn, account.id, { x: i }, { type: 'api' });
        recording.persist(execution);
        ids.push(execution.id);
      }
      await recording.flush();
      const pgBefore = await backendsCpu(orm, name);
      const cpuBefore = process.cpuUsage();
      const began = performance.now();
      for (const id of ids) {
        const outcome = await runExecution({ ...base, em: orm.em.fork(), receipts }, id);
        if (outcome.status !== 'completed') throw new Error(`a run ended ${outcome.status}`);
      }
      const wall = performance.now() - began;
      const cpu = process.cpuUsage(cpuBefore);
      const pg = (await backendsCpu(orm, name)) - pgBefore;
      return { here: (cpu.user + cpu.system) / 1000 / runs, pg: (pg * 1000) / runs, wall: wall / runs };
    };
    await block(signer, Math.ceil(counts.runsPerBlock / 4));
    await block(undefined, Math.ceil(counts.runsPerBlock / 4));
    const kinds = {
      without: [] as Awaited<ReturnType<typeof block>>[],
      with: [] as Awaited<ReturnType<typeof block>>[],
    };
    for (let round = 0; round < counts.rounds; round++) {
      // ABBA across rounds: neither kind always runs first.
      const order = round % 2 === 0 ? (['without', 'with'] as const) : (['with', 'without'] as const);
      for (const kind of order) {
        const figures = await block(kind === 'with' ? signer : undefined, counts.runsPerBlock);
        kinds[kind].push(figures);
        progress(
          `round ${round + 1} ${kind.padEnd(7)} receipts: ${figures.here.toFixed(3)} ms CPU here, ${figures.pg.toFixed(3)} ms PostgreSQL, ${figures.wall.toFixed(2)} ms wall a run`,
        );
      }
    }
    const line = (label: string, pick: (figures: Awaited<ReturnType<typeof block>>) => number) => {
      const without = kinds.without.map(pick);
      const withReceipts = kinds.with.map(pick);
      const ratios = withReceipts.map((value, i) => value / without[i]!);
      return `    ${label.padEnd(22)} without ${median(without).toFixed(3)} ms (${spread(without)}), with ${median(withReceipts).toFixed(3)} ms (${spread(withReceipts)}): ${(median(withReceipts) - median(without)).toFixed(3)} ms more, ratio ${median(ratios).toFixed(3)} (${ratios.map((r) => r.toFixed(2)).join(', ')})`;
    };
    return [
      `  the run path (runExecution, one at a time, ${counts.runsPerBlock} runs a block, ${counts.rounds} rounds of each), a run:`,
      line('CPU, this process', (figures) => figures.here),
      line('CPU, PostgreSQL', (figures) => figures.pg),
      line('wall', (figures) => figures.wall),
    ];
  } finally {
    isolates.dispose();
    await orm.close();
    await executeOnce(adminUrl, `drop database if exists "${name}" with (force)`);
  }
}

const adminUrl = process.env.DATABASE_URL;
try {
  progress(`counts: ${JSON.stringify(counts)}`);
  const lines = [...receiptSteps('typical'), ...receiptSteps('large')];
  for (const line of lines) progress(line);
  if (adminUrl) lines.push(...(await runPath(adminUrl)));
  else
    lines.push('  the run path: not measured (set DATABASE_URL to a server where a scratch database may be created)');
  printReport('receipts', lines);
} catch (error) {
  process.stderr.write(
    `bench:receipts failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exitCode = 1;
}

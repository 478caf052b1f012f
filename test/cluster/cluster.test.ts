import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { wallet } from '@cityofzion/neon-js';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createNeoRpc } from '../../src/chain/rpc.ts';
import { loadConfig } from '../../src/config.ts';
import { executeOnce } from '../../src/db/execute-once.ts';
import type { MikroORM } from '@mikro-orm/postgresql';
import { openOrm } from '../../src/orm.ts';
import { freePort } from '../../src/net/ports.ts';
import { dockerCompose, ensureGoProgram, temporalCli } from '../../src/stack/binaries.ts';
import { fundFromDevWallet } from '../../src/stack/dev-funder.ts';
import { automationsClient, gasHash, gasTransferAction, neoAboveTen, type Loose } from '../support/automations.ts';
import { filledEnv, renderCompose, type RenderedCompose } from '../support/compose.ts';
import { neoflowArgs } from '../support/neoflow-command.ts';
import { until } from '../support/polling.ts';
import { startPriceServer } from '../support/price-server.ts';
import {
  productionTemporal,
  startTemporalOnPostgres,
  temporalDeployDir,
  temporalServerPorts,
  type TemporalOnPostgres,
} from '../support/temporal-on-postgres.ts';
import { startInvokeLoad } from './invoke-load.ts';
import { NeoflowService } from './neoflow-service.ts';

const run = promisify(execFile);
const binDir = loadConfig({}).binDir;
const suffix = randomBytes(4).toString('hex');
const databases = {
  neoflow: `neoflow_cluster_${suffix}`,
  DBNAME: `temporal_cluster_${suffix}`,
  VISIBILITY_DBNAME: `temporal_vis_cluster_${suffix}`,
};
/** GAS fractions each contract run sends to `payee`: its balance counts the transactions. */
const amountPerRun = 1000n;
/** Acknowledged invokes between two events of the scenario: the load is well under way at each. */
const invokesBetweenEvents = 30;
const log = (line: string) => console.log(`[cluster] ${line}`);

let scratch: string;
let rendered: RenderedCompose;
let temporal: TemporalOnPostgres | undefined;
let databaseUrl: string;
let orm: MikroORM | undefined;
const apis: NeoflowService[] = [];
const workers: NeoflowService[] = [];
let key: string;
let signer: string;

/** The local PostgreSQL as the compose file's Temporal services name theirs. */
function temporalDatabaseEnv(): Record<string, string> {
  const admin = new URL(inject('adminDatabaseUrl'));
  return {
    POSTGRES_SEEDS: admin.hostname,
    DB_PORT: admin.port || '5432',
    POSTGRES_USER: decodeURIComponent(admin.username),
    POSTGRES_PWD: decodeURIComponent(admin.password),
    DBNAME: databases.DBNAME,
    VISIBILITY_DBNAME: databases.VISIBILITY_DBNAME,
    PATH: `${binDir}:${process.env.PATH}`,
  };
}

/** A Neoflow service's rendered environment, the hosts it names (postgres, temporal, neo) on loopback. */
async function onLoopback(service: string, replica: string): Promise<Record<string, string>> {
  return {
    ...rendered.services[service]!.environment,
    DATABASE_URL: databaseUrl,
    TEMPORAL_ADDRESS: temporal!.address,
    NEO_RPC_URL: inject('neoRpcUrl'),
    // Containers each have their own port 8080 and 9464; processes on one host cannot.
    NEOFLOW_API_HOST: '127.0.0.1',
    NEOFLOW_API_PORT: String(await freePort()),
    NEOFLOW_WORKER_METRICS_PORT: String(await freePort()),
    NEOFLOW_DATA_DIR: join(scratch, replica),
    // The test's price source is on loopback, as an operator's internal feed would be allowed.
    NEOFLOW_EGRESS_ALLOW: '127.0.0.1',
    // Schedules firing and prices read every second, under the 10 s allowed by default.
    NEOFLOW_SHORTEST_SCHEDULE_SECONDS: '1',
    NEOFLOW_SHORTEST_POLL_SECONDS: '1',
  };
}

const neoflowCommand = async (env: Record<string, string>, ...args: string[]) =>
  run(process.execPath, neoflowArgs(...args), { env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env } });

beforeAll(async () => {
  const progress = (line: string) => log(`build: ${line}`);
  const [composePath, programs] = await Promise.all([
    ensureGoProgram(dockerCompose, binDir, progress),
    productionTemporal(binDir, progress),
    ensureGoProgram(temporalCli, binDir, progress),
  ]);
  scratch = await mkdtemp(join(tmpdir(), 'neoflow-cluster-'));
  rendered = await renderCompose(composePath, scratch, filledEnv());

  // temporal-schema, temporal and temporal-setup, as the compose file runs them.
  const dbEnv = temporalDatabaseEnv();
  await run('sh', [`${temporalDeployDir}setup-schema.sh`], {
    env: { ...rendered.services['temporal-schema']!.environment, ...dbEnv, SCHEMA_DIR: programs.schemaDir },
  });
  temporal = await startTemporalOnPostgres(
    programs.server,
    { ...rendered.services.temporal!.environment, ...dbEnv, ...(await temporalServerPorts()) },
    join(scratch, 'temporal-server.log'),
  );
  const setup = rendered.services['temporal-setup']!;
  // As Compose runs it: `$$` unescaped to `$`, the service name `temporal` on loopback.
  const setupScript = setup.command!.join('\n').replaceAll('$$', '$').replaceAll('temporal:7233', temporal.address);
  const registered = await run('sh', ['-c', setupScript], {
    env: { ...setup.environment, PATH: `${binDir}:${process.env.PATH}`, HOME: process.env.HOME },
  });
  expect(registered.stdout).toContain('Neoflow search attributes registered');

  // migrate, then an account as an operator makes one, its signer funded for the contract action.
  const admin = inject('adminDatabaseUrl');
  await executeOnce(admin, `create database "${databases.neoflow}"`);
  const url = new URL(admin);
  url.pathname = `/${databases.neoflow}`;
  databaseUrl = url.toString();
  const migrateEnv = await onLoopback('migrate', 'migrate');
  await neoflowCommand(migrateEnv, 'migrate');
  orm = await openOrm(databaseUrl);
  const created = await neoflowCommand(migrateEnv, 'keys', 'create', '--account', 'cluster', '--rate', '5000/10s');
  key = created.stdout.trimEnd().split('\n').at(-1)!;
  signer = /signer (\S+)/.exec(created.stdout)![1]!;
  await fundFromDevWallet(inject('neoRpcUrl'), inject('devWallet'), signer, 100n * 10n ** 8n);

  for (const replica of ['a', 'b']) {
    apis.push(new NeoflowService('api', await onLoopback('api', `api-${replica}`), join(scratch, `api-${replica}`)));
    workers.push(
      new NeoflowService('worker', await onLoopback('worker', `worker-${replica}`), join(scratch, `worker-${replica}`)),
    );
  }
  await Promise.all([...apis, ...workers].map((service) => service.start()));
}, 1_800_000);

afterAll(async () => {
  await Promise.allSettled([...apis, ...workers].map((service) => service.stop()));
  await temporal?.stop();
  await orm?.close();
  const admin = inject('adminDatabaseUrl');
  for (const name of Object.values(databases))
    await executeOnce(admin, `drop database if exists "${name}" with (force)`);
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

describe('the compose deployment on one machine: Temporal on PostgreSQL, two APIs, two workers', () => {
  it('loses and duplicates nothing through kill -9 of a worker and an API, their restarts and a rolling restart of the workers', async () => {
    const client = automationsClient(apis[1]!.url, key);
    const payee = wallet.getAddressFromScriptHash(randomBytes(20).toString('hex'));
    const prices = await startPriceServer();
    const functionId = await client.deploy(
      'module.exports = async (c) => { const end = Date.now() + 20; while (Date.now() < end) { await null; } ' +
        'return c.params.n ?? null; };',
    );
    const everySecond = await client.create({
      name: 'every second',
      trigger: { type: 'schedule', cron: '* * * * * *' },
      action: { type: 'function', functionId },
    });
    const payWhenAbove = await client.create({
      name: 'pay when NEO is above 10',
      trigger: neoAboveTen(prices.url),
      action: gasTransferAction(signer, payee, String(amountPerRun)),
    });
    const watchPayee = await client.create({
      name: 'watch the payee',
      trigger: { type: 'blockchain', scriptHash: gasHash, event: 'Transfer', filter: { to: payee } },
      action: { type: 'function', functionId },
    });
    // The price crosses 10 upwards every 6 s: a contract run, then a watcher's run on its transfer.
    let flips = 0;
    const flipping = setInterval(() => prices.set(++flips % 2 === 1 ? '15' : '5'), 3_000);

    const started = Date.now();
    const load = startInvokeLoad({
      apis: () => apis.filter((api) => api.up).map((api) => api.url),
      key,
      functionId,
      lanes: 8,
    });
    const timeline: string[] = [];
    const mark = (what: string) => timeline.push(`${((Date.now() - started) / 1000).toFixed(1)} s ${what}`);
    const afterMoreInvokes = async () => {
      const target = load.acknowledged() + invokesBetweenEvents;
      await until(
        async () => load.acknowledged(),
        (count) => count >= target,
        120_000,
        50,
      );
    };

    await afterMoreInvokes();
    await workers[0]!.kill();
    mark('kill -9 worker a');
    await afterMoreInvokes();
    await apis[0]!.kill();
    mark('kill -9 api a');
    await afterMoreInvokes();
    await Promise.all([workers[0]!.start(), apis[0]!.start()]);
    mark('worker a and api a started again');
    await afterMoreInvokes();
    for (const [index, worker] of workers.entries()) {
      const name = `worker ${'ab'[index]}`;
      mark(`${name}: SIGTERM`);
      await worker.stop();
      mark(`${name} drained and exited`);
      await worker.start();
      mark(`${name} polling again`);
    }
    await afterMoreInvokes();
    const sent = await load.stop();
    const resumedAt = Date.now();
    mark('load stopped');

    // Every automation still fires after all of it: a schedule fire, a crossing paid, its transfer seen.
    const runsOf = (automationId: string) => automationRuns(automationId);
    const laterFire = await until(
      () => runsOf(everySecond),
      (runs) => runs.some((r) => Date.parse(r.trigger.scheduledAt as string) > resumedAt),
      120_000,
    );
    expect(laterFire.some((r) => Date.parse(r.trigger.scheduledAt as string) > resumedAt)).toBe(true);
    const laterPayment = await until(
      () => runsOf(payWhenAbove),
      (runs) => runs.some((r) => Date.parse(r.startedAt) > resumedAt && r.status === 'success'),
      120_000,
    );
    const paid = laterPayment.find((r) => Date.parse(r.startedAt) > resumedAt && r.status === 'success');
    expect(paid, 'a contract run after the restarts').toBeDefined();
    const seen = await until(
      () => runsOf(watchPayee),
      (runs) => runs.some((r) => r.trigger.txHash === paid!.txHash),
      120_000,
    );
    expect(seen.some((r) => r.trigger.txHash === paid!.txHash)).toBe(true);
    clearInterval(flipping);
    await prices.close();
    mark('each automation fired after the restarts');

    // Paused, the automations stop firing; then everything recorded must end. The payer first: a
    // payment it began before its pause lands a block or two later, and the watcher, still active
    // then, must see it; only once all is quiet is the watcher paused too.
    // Settled: nothing running, and nothing new recorded over five reads in a row (a fire that
    // began before the pause records its run a moment later).
    const settle = async () => {
      let quiet = 0;
      let last = '';
      await until(
        async () => {
          const now = await recordedState();
          quiet = now.running === 0 && now.seen === last ? quiet + 1 : 0;
          last = now.seen;
          return quiet;
        },
        (reads) => reads >= 5,
        300_000,
        500,
      );
      expect(quiet, 'reads in a row with nothing running or new').toBeGreaterThanOrEqual(5);
    };
    for (const ids of [[everySecond, payWhenAbove], [watchPayee]]) {
      for (const id of ids)
        expect((await client.call('PATCH', `/automations/${id}`, { status: 'inactive' })).status).toBe(200);
      await settle();
    }
    mark('nothing running');

    // Invokes: each acknowledged one completed once; none recorded twice; none left running.
    const rows = await executionsOf(functionId);
    const byN = Map.groupBy(
      rows.filter((row) => row.trigger.type === 'api'),
      (row) => row.params.n!,
    );
    const acknowledged = sent.filter((invoke) => invoke.executionId !== undefined);
    const unanswered = sent.filter((invoke) => invoke.status === undefined);
    const lost = acknowledged.filter((invoke) => {
      const found = byN.get(invoke.n);
      return found?.length !== 1 || found[0]!.id !== invoke.executionId || found[0]!.status !== 'completed';
    });
    const duplicated = [...byN.values()].filter((found) => found.length > 1);
    const running = rows.filter((row) => row.status === 'running');
    const refused = sent.filter((invoke) => invoke.status !== undefined && invoke.executionId === undefined);

    // Automations: one execution per function run, one transaction per contract run, one watcher run per transfer.
    const [schedule, payments, watched] = await Promise.all([
      runsOf(everySecond),
      runsOf(payWhenAbove),
      runsOf(watchPayee),
    ]);
    const automationExecutions = rows.filter((row) => row.trigger.type === 'automation');
    const paidHashes = payments.map((r) => r.txHash);
    const balance = BigInt((await createNeoRpc(inject('neoRpcUrl')).getBalance(payee, 'GAS')).amount);

    log(
      `load: ${sent.length} invokes (${sent.filter((i) => i.mode === 'sync').length} sync, ` +
        `${sent.filter((i) => i.mode === 'async').length} async) over ${((resumedAt - started) / 1000).toFixed(0)} s ` +
        `by 8 clients; acknowledged ${acknowledged.length}, unanswered ${unanswered.length} ` +
        `(in flight at the API's kill), refused ${refused.length}`,
    );
    log(
      `executions recorded ${rows.length}; lost ${lost.length}, duplicated ${duplicated.length}, running ${running.length}`,
    );
    const fireTimes = schedule.map((r) => Date.parse(r.trigger.scheduledAt as string)).sort((a, b) => a - b);
    const longestGap = Math.max(...fireTimes.slice(1).map((time, index) => time - fireTimes[index]!));
    const firedSpan = (fireTimes.at(-1)! - fireTimes[0]!) / 1000 + 1;
    log(
      `schedule: ${schedule.length} fires in ${firedSpan} s, longest gap ${longestGap / 1000} s ` +
        `(overlap ALLOW_ALL: no fire waits for another; one whose first step runs past the catchup window records nothing)`,
    );
    log(
      `automation runs: schedule ${schedule.length}, price → contract ${payments.length} ` +
        `(${new Set(paidHashes).size} transactions, payee holds ${balance} fractions = ${balance / amountPerRun} runs), ` +
        `blockchain watcher ${watched.length}`,
    );
    for (const line of timeline) log(line);

    expect(refused.map((invoke) => invoke.status)).toEqual([]);
    expect(lost).toEqual([]);
    expect(duplicated).toEqual([]);
    expect(running).toEqual([]);
    // What was in flight at the kill ran at most once, and ended with a clear outcome.
    for (const invoke of unanswered) {
      for (const row of byN.get(invoke.n) ?? []) {
        if (row.status !== 'completed') expect(row.error?.message, `error of ${row.id}`).toMatch(/\w{4,}/);
      }
    }

    for (const runs of [schedule, watched]) {
      expect(runs.filter((r) => r.status !== 'success')).toEqual([]);
      expect(runs.filter((r) => r.executionId === null)).toEqual([]);
      expect(new Set(runs.map((r) => r.executionId)).size).toBe(runs.length);
    }
    expect(automationExecutions.length).toBe(schedule.length + watched.length);
    expect(new Set(schedule.map((r) => r.trigger.scheduledAt as string)).size).toBe(schedule.length);

    expect(payments.filter((r) => r.status !== 'success' || r.vmState !== 'HALT')).toEqual([]);
    expect(new Set(paidHashes).size).toBe(payments.length);
    expect(balance).toBe(BigInt(payments.length) * amountPerRun);
    expect(watched.map((r) => r.trigger.txHash as string).sort()).toEqual([...paidHashes].sort());
  }, 1_200_000);
});

interface RunRow {
  id: string;
  status: string;
  trigger: Loose;
  executionId: string | null;
  txHash: string | null;
  vmState: string | null;
  startedAt: string;
}

interface ExecutionRow {
  id: string;
  status: string;
  trigger: { type: string };
  params: { n?: number };
  error: { message: string } | null;
}

/** Read from the database directly: a run of minutes outgrows a page of the API. */
const query = <T>(sql: string, params: unknown[] = []) => orm!.em.getConnection().execute<T[]>(sql, params);

const automationRuns = (automationId: string) =>
  query<RunRow>(
    `select id, status, trigger, execution_id as "executionId", tx_hash as "txHash", vm_state as "vmState",
            started_at as "startedAt"
     from automation_runs where automation_id = ? order by started_at`,
    [automationId],
  );

const executionsOf = (functionId: string) =>
  query<ExecutionRow>('select id, status, trigger, params, error from executions where function_id = ?', [functionId]);

/** How many executions and runs are running, and a fingerprint of how many of each exist. */
async function recordedState(): Promise<{ running: number; seen: string }> {
  const [row] = await query<{ running: number; executions: number; runs: number }>(
    `select (select count(*) from executions where status = 'running')
          + (select count(*) from automation_runs where status = 'running') as running,
            (select count(*) from executions) as executions,
            (select count(*) from automation_runs) as runs`,
  );
  return { running: Number(row!.running), seen: `${row!.executions}/${row!.runs}` };
}

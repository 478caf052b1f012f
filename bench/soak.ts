import { setTimeout as sleep } from 'node:timers/promises';
import { until } from '../test/support/polling.ts';
import { startAutomationsStack, type AutomationsBenchStack } from './automations-stack.ts';
import { countFrom, printReport, progress, runBench, summarise } from './measure.ts';
import { rssMiB } from './proc.ts';
import { apiClient } from './scratch-stack.ts';

/**
 * `npm run bench:soak`: the long load run of issue 35. For BENCH_SOAK_MINUTES (default 60), 4
 * synchronous and 2 asynchronous clients invoke a function back to back while two every-second
 * schedules run, one whose function always throws and one whose function succeeds. Each minute it
 * prints how often each schedule fired, the executions older than a minute still `running`, and the
 * worker's and the API's memory; at the end, whether every schedule fired in every minute, whether
 * anything was left running, and how memory moved after the warm-up.
 */
const minutes = countFrom('BENCH_SOAK_MINUTES', 60);
const syncClients = countFrom('BENCH_SOAK_SYNC', 4);
const asyncClients = countFrom('BENCH_SOAK_ASYNC', 2);

type Body = { data?: { id?: string }; id?: string };

interface Minute {
  minute: number;
  fires: Record<'failing' | 'succeeding', number>;
  invokes: number;
  p50: number;
  lingering: number;
  workerMiB: number;
  apiMiB: number;
}

await runBench('soak', {
  counts: { minutes, syncClients, asyncClients, schedules: 2 },
  notes: ['two every-second schedules (one always throws) under a steady invoke load'],
  start: startAutomationsStack,
  measure: async (stack) => {
    const call = apiClient<Body>(stack);
    const deploy = async (name: string, code: string) => {
      const created = await call('POST', '/functions', { name, code, runtime: 'node18' });
      if (created.status !== 201) throw new Error(`deploy ${name}: ${created.status} ${JSON.stringify(created.body)}`);
      return created.body.data!.id!;
    };
    const ok = await deploy('soak-ok', 'module.exports = async () => 1;');
    const failing = await deploy('soak-fails', "module.exports = async () => { throw new Error('always'); };");
    const schedule = async (name: string, functionId: string) => {
      const body = {
        name,
        trigger: { type: 'schedule', cron: '* * * * * *' },
        action: { type: 'function', functionId },
      };
      const created = await call('POST', '/automations', body);
      if (created.status !== 201)
        throw new Error(`schedule ${name}: ${created.status} ${JSON.stringify(created.body)}`);
      return created.body.id!;
    };
    const automations = { failing: await schedule('soak-failing', failing), succeeding: await schedule('soak-ok', ok) };

    let stopped = false;
    let latencies: number[] = [];
    let refused = 0;
    const client = async (async: boolean) => {
      while (!stopped) {
        const began = performance.now();
        const answer = await call('POST', `/functions/${ok}/invoke`, { params: {}, async }).catch(() => undefined);
        // A full queue answers 429 with Retry-After: a client honours it instead of spinning on refusals.
        if (answer?.status === 429) {
          refused++;
          await sleep(1000);
          continue;
        }
        latencies.push(performance.now() - began);
      }
    };
    const clients = [
      ...Array.from({ length: syncClients }, () => client(false)),
      ...Array.from({ length: asyncClients }, () => client(true)),
    ];

    const rows: Minute[] = [];
    for (let minute = 1; minute <= minutes; minute++) {
      await sleep(60_000);
      const sample = { ...(await sampleMinute(stack, automations, minute, latencies)), refused };
      latencies = [];
      refused = 0;
      rows.push(sample);
      progress(
        `minute ${minute}: fires failing ${sample.fires.failing}, succeeding ${sample.fires.succeeding}; ` +
          `${sample.invokes} invokes p50 ${sample.p50.toFixed(1)} ms, ${sample.refused} refused (429); running > 60 s: ${sample.lingering}; ` +
          `worker ${sample.workerMiB.toFixed(0)} MiB, api ${sample.apiMiB.toFixed(0)} MiB`,
      );
    }
    stopped = true;
    await Promise.all(clients);
    const left = await until(
      () => runningCount(stack, '0 seconds'),
      (count) => count === 0,
      300_000,
      1000,
    );
    report(rows, left);
  },
});

async function sampleMinute(
  stack: AutomationsBenchStack,
  automations: Record<'failing' | 'succeeding', string>,
  minute: number,
  latencies: number[],
): Promise<Minute> {
  const connection = stack.orm.em.fork().getConnection();
  const fired = await connection.execute<{ automation_id: string; count: string }[]>(
    `select "automation_id", count(*) from "automation_runs"
      where "started_at" > now() - interval '60 seconds' group by "automation_id"`,
  );
  const firesOf = (id: string) => Number(fired.find((row) => row.automation_id === id)?.count ?? 0);
  return {
    minute,
    fires: { failing: firesOf(automations.failing), succeeding: firesOf(automations.succeeding) },
    invokes: latencies.length,
    p50: summarise(latencies).p50,
    lingering: await runningCount(stack, '60 seconds'),
    workerMiB: rssMiB(stack.worker.child.pid!),
    apiMiB: process.memoryUsage().rss / 2 ** 20,
  };
}

/** Executions and runs still `running` that started more than `age` ago. */
async function runningCount(stack: AutomationsBenchStack, age: string): Promise<number> {
  const [row] = await stack.orm.em
    .fork()
    .getConnection()
    .execute<{ count: string }[]>(
      `select (select count(*) from "executions" where "status" = 'running' and "started_at" < now() - interval '${age}')
            + (select count(*) from "automation_runs" where "status" = 'running' and "started_at" < now() - interval '${age}')
         as count`,
    );
  return Number(row!.count);
}

function report(rows: Minute[], left: number) {
  // The first two minutes warm up (bundles, isolates, caches): memory is judged after them.
  const warm = rows.slice(Math.min(2, rows.length - 1));
  const silent = (kind: 'failing' | 'succeeding') => rows.filter((row) => row.fires[kind] === 0).length;
  const growth = (pick: (row: Minute) => number) =>
    warm.length > 1 ? `${pick(warm[0]!).toFixed(0)} → ${pick(warm.at(-1)!).toFixed(0)} MiB` : 'n/a';
  printReport('soak', [
    `  ${rows.length} minutes, ${syncClients} sync + ${asyncClients} async clients, two every-second schedules`,
    `  schedule fires per minute (failing): min ${Math.min(...rows.map((row) => row.fires.failing))}, minutes with none ${silent('failing')}`,
    `  schedule fires per minute (succeeding): min ${Math.min(...rows.map((row) => row.fires.succeeding))}, minutes with none ${silent('succeeding')}`,
    `  invokes: ${rows.reduce((sum, row) => sum + row.invokes, 0)}, p50 per minute ${rows.map((row) => row.p50.toFixed(0)).join(' ')} ms`,
    `  executions or runs running > 60 s at any minute: max ${Math.max(...rows.map((row) => row.lingering))}; left running at the end: ${left}`,
    `  worker RSS after warm-up ${growth((row) => row.workerMiB)}; api (this process) ${growth((row) => row.apiMiB)}`,
    `  verdict: every schedule fired every minute: ${silent('failing') + silent('succeeding') === 0 ? 'PASS' : 'MISS'}; nothing left running: ${left === 0 ? 'PASS' : 'MISS'}`,
  ]);
}

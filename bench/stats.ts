import { randomBytes } from 'node:crypto';
import { executeOnce } from '../src/db/execute-once.ts';
import { migrate, openOrm } from '../src/orm.ts';
import { functionStats, lastInvocations } from '../src/functions/stats.ts';

/**
 * Stats and lastInvocation of one function with 100,000 executions (issue 4 asks that they stay
 * fast). Needs DATABASE_URL naming a server where it may create a scratch database.
 */
const adminUrl = process.env.DATABASE_URL;
if (!adminUrl) throw new Error('set DATABASE_URL to a PostgreSQL server where a scratch database may be created');
const rows = 100_000;
const name = `neoflow_bench_${randomBytes(4).toString('hex')}`;
await executeOnce(adminUrl, `create database "${name}"`);
const url = new URL(adminUrl);
url.pathname = `/${name}`;
const orm = await openOrm(url.toString());
try {
  await migrate(orm);
  const connection = orm.em.getConnection();
  await connection.execute(`insert into accounts values ('acct_b', 'bench', now(), now())`);
  const fn = `insert into functions values ('func_b', 'acct_b', 'bench', null, 'node18', 30, 'x', 'active', '{}', '{}', '{}', now(), now())`;
  await connection.execute(fn);
  await connection.execute(
    `insert into executions (id, function_id, account_id, status, params, logs, trigger, secrets_read, started_at, completed_at, duration)
     select 'exec_' || i, 'func_b', 'acct_b', case when i % 10 = 0 then 'failed' else 'completed' end, '{}', '[]',
            '{"type":"api"}', '[]', now() - (i || ' seconds')::interval, now(), i % 500
       from generate_series(1, ${rows}) as i`,
  );
  await connection.execute('analyze executions');
  const time = async (label: string, work: () => Promise<unknown>) => {
    await work();
    const samples: number[] = [];
    for (let run = 0; run < 20; run++) {
      const started = performance.now();
      await work();
      samples.push(performance.now() - started);
    }
    samples.sort((a, b) => a - b);
    console.log(`${label}: p50 ${samples[10]!.toFixed(1)} ms, max ${samples[19]!.toFixed(1)} ms (${rows} executions)`);
  };
  await time('baseline: select 1', () => orm.em.fork().getConnection().execute('select 1'));
  await time('stats (get-one)', () => functionStats(orm.em.fork(), 'func_b'));
  await time('lastInvocation (list item)', () => lastInvocations(orm.em.fork(), ['func_b']));
} finally {
  await orm.close();
  await executeOnce(adminUrl, `drop database if exists "${name}" with (force)`);
}

import type { MikroORM } from '@mikro-orm/postgresql';

/** PostgreSQL's own counters of the bench's database: what its CPU is spent on (no extension needed). */
interface Counters {
  commits: number;
  /** Rows read by table: sequential scans' rows plus the rows fetched through indexes. */
  rowsByTable: Map<string, number>;
}

async function read(orm: MikroORM): Promise<Counters> {
  const em = orm.em.fork();
  const [database] = await em.execute<{ commits: string }[]>(
    `select xact_commit as "commits" from pg_stat_database where datname = current_database()`,
  );
  const tables = await em.execute<{ relname: string; rows: string }[]>(
    `select relname, coalesce(seq_tup_read, 0) + coalesce(idx_tup_fetch, 0) as "rows" from pg_stat_user_tables`,
  );
  return {
    commits: Number(database?.commits ?? 0),
    rowsByTable: new Map(tables.map((table) => [table.relname, Number(table.rows)])),
  };
}

/** Transactions and rows read per minute over a window, the tables read most first. */
export async function sampleActivity(orm: MikroORM) {
  const before = await read(orm);
  const began = Date.now();
  return {
    async stop() {
      const after = await read(orm);
      const minutes = (Date.now() - began) / 60_000;
      const rows = [...after.rowsByTable].map(([table, count]) => ({
        table,
        perMinute: (count - (before.rowsByTable.get(table) ?? 0)) / minutes,
      }));
      rows.sort((a, b) => b.perMinute - a.perMinute);
      return {
        commitsPerMinute: (after.commits - before.commits) / minutes,
        rowsPerMinute: rows.reduce((sum, row) => sum + row.perMinute, 0),
        topTables: rows.slice(0, 4),
      };
    },
  };
}

export type Activity = Awaited<ReturnType<Awaited<ReturnType<typeof sampleActivity>>['stop']>>;

export const describeActivity = (activity: Activity) =>
  `pg ${activity.commitsPerMinute.toFixed(0)} commits/min, ${activity.rowsPerMinute.toFixed(0)} rows read/min (` +
  activity.topTables.map((row) => `${row.table} ${row.perMinute.toFixed(0)}`).join(', ') +
  ')';

import type { EntityManager } from '@mikro-orm/postgresql';
import { CompiledQuery, type Kysely, type QueryResult } from 'kysely';

/**
 * Runs a plain statement with its values sent as bound parameters. MikroORM's `execute` writes
 * every value into the SQL text instead, escaping strings one character at a time on the main
 * thread: a run's 4 MB of log lines cost 0.6–1.1 s of it here, and every request of every account
 * waited (mikro-orm/mikro-orm#8001). Statements that write what a run produced go through here.
 * `?` marks a value, as in MikroORM's statements; the statement joins the manager's transaction.
 */
export async function executeBound<Row>(em: EntityManager, sql: string, values: readonly unknown[]) {
  let index = 0;
  const numbered = sql.replaceAll('?', () => `$${++index}`);
  if (index !== values.length) throw new Error(`the statement has ${index} values, given ${values.length}`);
  const connection = em.getConnection();
  await connection.ensureConnection();
  const runner = em.getTransactionContext<Kysely<unknown>>();
  const result: QueryResult<Row> = await (runner ?? connection.getClient()).executeQuery(
    CompiledQuery.raw(numbered, [...values]),
  );
  return { rows: result.rows, affectedRows: Number(result.numAffectedRows ?? 0) };
}

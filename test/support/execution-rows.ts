import type { TestDatabase } from './database.ts';

export interface ExecutionRow {
  id: string;
  status: string;
  params: { n?: number };
  error: { name: string; message: string } | null;
  /** Stored results: exactly one for a completed execution, none otherwise. */
  results: number;
}

/** Every execution of the function as stored, with how many results each has. */
export async function executionRows(db: TestDatabase, functionId: string): Promise<ExecutionRow[]> {
  return db.orm.em
    .fork()
    .getConnection()
    .execute<ExecutionRow[]>(
      `select e.id, e.status, e.params, e.error,
       (select count(*)::int from execution_results r where r.execution_id = e.id) as results
     from executions e where e.function_id = ?`,
      [functionId],
    );
}

import type { EntityManager } from '@mikro-orm/postgresql';
import type { Client } from '@temporalio/client';
import type { Logger } from '../log.ts';
import { callsInFlight, nextKeyset, pageSize, type Keyset, type SweptPage } from './keyset.ts';
import { logCause, mapBounded, workflowState, type WorkflowState } from './workflow-state.ts';

/** What a sweep made of one row: its workflow handed back to be started, the row ended now, or neither. */
type RowSettled<T> = { start: T } | 'ended' | undefined;

/**
 * A sweep of the reconciler over one table: a page of the rows `page` reads once their grace has
 * passed, each held against its workflow (named by the row's id unless `workflowIdOf` says
 * otherwise), what a failed one raised logged, and `settle` deciding for the row. It answers what
 * the reconciler starts, how many rows were ended, and where the next page starts.
 */
export const rowSweep =
  <Row extends { id: string; cursor_at: string }, T>(
    page: (em: EntityManager, graceSeconds: number, after: Keyset, limit: number) => Promise<Row[]>,
    settle: (em: EntityManager, row: Row, state: WorkflowState, client: Client) => Promise<RowSettled<T>>,
    workflowIdOf: (row: Row) => string = (row) => row.id,
  ) =>
  async (
    em: EntityManager,
    client: Client,
    graceMs: number,
    after: Keyset,
    log: Pick<Logger, 'warn'>,
  ): Promise<SweptPage<T>> => {
    const rows = await page(em, graceMs / 1000, after, pageSize);
    const states = await mapBounded(rows, callsInFlight, (row) => workflowState(client, workflowIdOf(row)));
    const unstarted: T[] = [];
    let finished = 0;
    for (const [index, row] of rows.entries()) {
      const state = states[index]!;
      logCause(log, row.id, state);
      const settled = await settle(em, row, state, client);
      if (settled === 'ended') finished += 1;
      else if (settled) unstarted.push(settled.start);
    }
    return { unstarted, finished, next: nextKeyset(rows) };
  };
